"""pyarrow without pandas in the dedup stages' processes (issue 27 item 4: dedup's CPU).

pyarrow imports pandas the first time it converts Python objects or a numpy array (to check whether
they are pandas types): ~0.5 CPU s of import, ~0.8 s in a stage on a loaded machine with the garbage
collections it sets off. No dedup stage uses pandas.
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
    """Make pyarrow look for pandas once while it cannot be imported (as where it is not installed,
    which pyarrow supports); pyarrow remembers the answer. pandas itself stays importable, and pyarrow's
    own pandas conversions (``to_pandas``) still import it when called. Call before any conversion."""
    if "pandas" in sys.modules:
        return
    blocker = _NoPandas()
    sys.meta_path.insert(0, blocker)
    try:
        pa.array([0])
    finally:
        sys.meta_path.remove(blocker)
