"""The dedup stage's process: what it loads (issue 27 item 4, its CPU at 100k articles)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

_PROBE = """
import sys
from almanac.core.without_pandas import pyarrow_without_pandas
pyarrow_without_pandas()
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
assert pc.fill_null(pa.array([1, None]), -1).to_pylist() == [1, -1]
assert pa.array(np.arange(3)).to_pylist() == [0, 1, 2]
assert pa.table({"a": ["x", None]}).column("a").null_count == 1
assert "pandas" not in sys.modules, "pyarrow imported pandas"
import pandas
assert pa.table({"a": [7]}).to_pandas()["a"].tolist() == [7]  # asked for, pandas still works
print("ok")
"""


def test_pyarrow_converts_without_importing_pandas_which_stays_importable() -> None:
    """pyarrow imports pandas at its first conversion of Python or numpy values (~0.8 CPU s of the
    stage); after ``pyarrow_without_pandas`` it converts the same without it, and ``to_pandas`` works."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=REPO, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "ok"
