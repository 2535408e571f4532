"""The commands that read Parquet run without pandas: none uses it, and pyarrow would import it (~0.5 s of CPU
a command, ~10 s over the README's commands)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

# Runs `almanac <args>` in a fresh interpreter; prints whether pandas got loaded and what pyarrow thinks.
PROBE = """
import contextlib, io, json, sys
from almanac.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(json.loads(sys.argv[1]))
from pyarrow.pandas_compat import _pandas_api
print(json.dumps({"code": code, "pandas": "pandas" in sys.modules, "pyarrow_sees": _pandas_api.have_pandas}))
"""


def probe(args: list[str], cwd: Path) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(args)], cwd=cwd, capture_output=True, text=True, check=True
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


def test_scoring_a_parquet_file_loads_no_pandas(tmp_path: Path) -> None:
    queries = tmp_path / "queries.parquet"
    pq.write_table(pa.table({"query_id": ["q-1"]}), queries)
    args = ["score", "mirai", "--queries", str(queries), "--baseline", "--out", str(tmp_path / "out.json")]
    result = probe(args, tmp_path)
    assert result["pandas"] is False and result["pyarrow_sees"] is False
    # The probe could pass by never reading a table: pandas is what pyarrow loads when it is not blocked.
    assert (
        subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys, pyarrow.parquet as pq; pq.read_table(sys.argv[1]); "
                "assert 'pandas' in sys.modules",
                str(queries),
            ],
            check=False,
        ).returncode
        == 0
    )
