"""pyarrow without pandas in a stage's process: no stage uses pandas, and importing it was ~0.75 s of CPU
in every stage process (issue 26: stage start-up; 40 of the sample build's 49 processes paid it).

pyarrow imports pandas the first time it converts Python objects or a numpy array (to check whether they
are pandas types), and ``pyarrow.dataset``, which ``pq.read_table`` goes through, imports it when loaded.
Both ask pyarrow's pandas shim, which looks for pandas once and remembers the answer. Asking it once while
pandas cannot be imported (as where pandas is not installed, which pyarrow supports) answers "absent" for the
rest of the process. pandas itself stays importable, and pyarrow's own pandas conversions (``to_pandas``)
still import it when called. The dedup stages call it too, and every `almanac` command that reads tables.
"""

from __future__ import annotations

import importlib.abc
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

import pyarrow as pa


class _NoPandas(importlib.abc.MetaPathFinder):
    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname.partition(".")[0] == "pandas":
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)
        return None


def pyarrow_without_pandas() -> None:
    """Make pyarrow look for pandas once while it cannot be imported; a no-op where pandas is loaded
    already. Call before any conversion (``start_stage`` does, for every stage)."""
    if "pandas" in sys.modules:
        return
    blocker = _NoPandas()
    sys.meta_path.insert(0, blocker)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(blocker)
