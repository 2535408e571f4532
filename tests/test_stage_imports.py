"""Stage start-up: importing a stage module loads none of the heavy libraries (issue 26).

Every DVC stage is its own process, so a library imported at the top of any module a stage's import
closure reaches is paid by that stage on every run, used or not (spaCy and the openai SDK cost ~1 s of CPU
each). The heavy libraries below are imported where they are used (almanac.core.lazy). Allowed at import
time: pyarrow and numpy (every stage reads and writes Parquet, and the schemas are module constants) and
the small pure-Python readers.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from almanac.core.lazy import lazy_module

ROOT = Path(__file__).resolve().parents[1]
STAGES = sorted(path.stem for path in (ROOT / "stages").glob("*.py") if path.stem != "__init__")
HEAVY = (
    "aiohttp",
    "datasketch",
    "duckdb",
    "dvc",
    "dvc_data",
    "httpx",
    "jinja2",
    "lxml",
    "matplotlib",
    "openai",
    "pandas",
    "pydantic",
    "ray",
    "scipy",
    "sklearn",
    "spacy",
    "thinc",
    "torch",
    "trafilatura",
)

_LOADED_AFTER = """
import importlib, json, sys
for name in sys.argv[1:]:
    importlib.import_module(name)
print(json.dumps(sorted({module.split(".")[0] for module in sys.modules})))
"""


def heavy_loaded_by(*modules: str) -> list[str]:
    """The heavy top-level packages in sys.modules of a fresh interpreter after importing ``modules``."""
    result = subprocess.run(
        [sys.executable, "-c", _LOADED_AFTER, *modules],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted(set(json.loads(result.stdout)) & set(HEAVY))


def test_every_stage_is_found() -> None:
    # A glob that matched nothing would make the next test pass vacuously.
    assert len(STAGES) >= 30  # 36 stage modules: several steps share one (foresight_month, check, ...)
    assert "foresight_month" in STAGES and "mirai_stats_report" in STAGES


def test_no_stage_imports_a_heavy_library() -> None:
    # One interpreter imports every stage: a heavy library none of them pulls in is pulled in by no single
    # stage either, at the cost of one process instead of one per stage.
    loaded = heavy_loaded_by(*(f"stages.{stage}" for stage in STAGES))
    if not loaded:
        return
    # Name the culprits, a process per stage (only when the union check failed).
    culprits = {stage: heavy_loaded_by(f"stages.{stage}") for stage in STAGES}
    named = {stage: libraries for stage, libraries in culprits.items() if libraries}
    pytest.fail(f"stage modules import heavy libraries at import time: {named}")


def test_the_check_sees_a_heavy_import() -> None:
    # The check itself can fail: a module that imports duckdb at its top is caught.
    assert heavy_loaded_by("duckdb") == ["duckdb"]
    assert heavy_loaded_by("stages.dedup", "almanac.reports.figures") == []


def test_lazy_module_imports_at_first_attribute_read() -> None:
    code = (
        "import sys\n"
        "from almanac.core.lazy import lazy_module\n"
        "csv = lazy_module('csv')\n"
        "before = 'csv' in sys.modules\n"
        "dialect = csv.excel\n"
        "print(before, 'csv' in sys.modules, dialect.delimiter == ',')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "True", "True"]


def test_lazy_module_forwards_exceptions_and_missing_names() -> None:
    json_lazy = lazy_module("json")
    with pytest.raises(json_lazy.JSONDecodeError):
        json.loads("{")
    with pytest.raises(AttributeError):
        _ = json_lazy.no_such_name
    with pytest.raises(ModuleNotFoundError):
        _ = lazy_module("almanac_no_such_module").anything


def test_lazy_module_runs_its_hook_once_before_the_import() -> None:
    # figures.py chooses matplotlib's Agg backend this way, before pyplot is imported.
    code = (
        "import sys\n"
        "from almanac.core.lazy import lazy_module\n"
        "seen = []\n"
        "csv = lazy_module('csv', before=lambda: seen.append('csv' in sys.modules))\n"
        "csv.excel; csv.reader\n"
        "print(seen)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "[False]"
