"""A month with no raw files fails its ingest stage loudly, unless params list it in empty_months.

The stages run as DVC runs them (``python -m stages.<name>``) in a scratch folder with a small params
file; what is checked is the exit status, the one-line message naming the folder, and the empty output
of a month that is empty on purpose.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
import yaml

from almanac.core.params import empty_months
from almanac.core.raw_input import NoRawInput, check_raw_files
from tests.support.project import run

MONTH = "2025-07"


def stage(project: Path, name: str, params: dict[str, Any], month: str | None = MONTH) -> tuple[int, str]:
    """Run stage ``name`` in ``project`` (gdelt_ingest: the step of ``stages.gdelt_month``); its exit status
    and stderr."""
    (project / "params.yaml").write_text(yaml.safe_dump({"ray": {"executor": "serial"}, **params}))
    module = ["stages.gdelt_month", "--step", name] if name == "gdelt_ingest" else [f"stages.{name}"]
    command = [sys.executable, "-m", *module, *(["--month", month] if month else [])]
    result = run(command, project, check=False)
    return result.returncode, result.stderr


def last_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert lines, "nothing on stderr"
    return lines[-1]


@pytest.mark.slow  # the stage as a process (~3 s)
def test_ccnews_missing_month_folder_fails_naming_it(tmp_path: Path) -> None:
    code, stderr = stage(tmp_path, "ccnews_ingest", {"ccnews_ingest": {"raw_dir": "raw/ccnews"}})
    assert code == 1
    assert last_line(stderr) == (
        f"ccnews_ingest@{MONTH}: no raw input for {MONTH}: raw/ccnews/{MONTH} does not exist; "
        f"if {MONTH} has no data on purpose, list it in params.yaml empty_months.ccnews"
    )
    assert "Traceback" not in stderr
    assert not (tmp_path / "data/ingest").exists()  # nothing written


@pytest.mark.slow  # the stage as a process (~3 s)
def test_ccnews_folder_with_only_ignored_files_is_empty(tmp_path: Path) -> None:
    folder = tmp_path / "raw/ccnews" / MONTH
    folder.mkdir(parents=True)
    (folder / "MANIFEST.json").write_text("{}")  # the downloader's bookkeeping, not an input
    (folder / "CC-NEWS-1.warc.gz.part").write_bytes(b"")  # a download still in progress
    code, stderr = stage(tmp_path, "ccnews_ingest", {"ccnews_ingest": {"raw_dir": "raw/ccnews"}})
    assert code == 1
    assert f"raw/ccnews/{MONTH} holds no input files" in last_line(stderr)


@pytest.mark.slow  # the stage as a process (~3 s)
def test_ccnews_month_empty_on_purpose_builds_empty(tmp_path: Path) -> None:
    params = {"ccnews_ingest": {"raw_dir": "raw/ccnews"}, "empty_months": {"ccnews": [MONTH]}}
    code, stderr = stage(tmp_path, "ccnews_ingest", params)
    assert code == 0, stderr
    articles = tmp_path / "data/ingest" / MONTH / "articles"
    assert articles.is_dir() and list(articles.iterdir()) == []
    assert pq.read_table(tmp_path / "data/ingest" / MONTH / "rejects.parquet").num_rows == 0
    metrics = json.loads((tmp_path / f"reports/metrics/ccnews_ingest/{MONTH}.json").read_text())
    assert (metrics["items_in"], metrics["items_out"], metrics["files"]) == (0, 0, 0)


@pytest.mark.slow  # the stage as a process (~3 s)
def test_ccnews_other_month_listed_does_not_excuse_this_one(tmp_path: Path) -> None:
    # neither another month of the source nor the month for another source excuses it
    params = {
        "ccnews_ingest": {"raw_dir": "raw/ccnews"},
        "empty_months": {"ccnews": ["2025-08"], "gdelt": [MONTH]},
    }
    code, stderr = stage(tmp_path, "ccnews_ingest", params)
    assert code == 1 and f"raw/ccnews/{MONTH} does not exist" in last_line(stderr)


@pytest.mark.slow  # the stage as a process (~3 s)
def test_gdelt_empty_month_folder_fails_and_listed_month_builds_empty(tmp_path: Path) -> None:
    folder = tmp_path / "data/gdelt/raw" / MONTH
    folder.mkdir(parents=True)
    (folder / "MANIFEST.json").write_text("{}")  # what gdelt_download leaves when it selected no file
    code, stderr = stage(tmp_path, "gdelt_ingest", {})
    assert code == 1
    assert last_line(stderr).startswith(
        f"gdelt_ingest@{MONTH}: no raw input for {MONTH}: data/gdelt/raw/{MONTH} holds no input files;"
    )
    assert not (tmp_path / "data/gdelt/events").exists()

    code, stderr = stage(tmp_path, "gdelt_ingest", {"empty_months": {"ccnews": [MONTH]}})  # not gdelt's
    assert code == 1 and "list it in params.yaml empty_months.gdelt" in last_line(stderr)
    code, stderr = stage(tmp_path, "gdelt_ingest", {"empty_months": {"gdelt": [MONTH]}})
    assert code == 0, stderr
    assert pq.read_table(tmp_path / f"data/gdelt/events/{MONTH}.parquet").num_rows == 0
    assert pq.read_table(tmp_path / f"data/gdelt/mentions/{MONTH}.parquet").num_rows == 0


@pytest.mark.slow  # the stage as a process (~3 s)
def test_wcep_with_no_input_fails_naming_its_sources(tmp_path: Path) -> None:
    (tmp_path / "portal").mkdir()
    params = {"wcep_ingest": {"dump_dir": "", "portal_dir": "portal"}, "empty_months": {"ccnews": [MONTH]}}
    code, stderr = stage(tmp_path, "wcep_ingest", params, month=None)
    # One events table for every month: listing a month does not make it empty on purpose.
    assert code == 1
    assert last_line(stderr) == (
        "wcep_ingest: read no Current Events day page and no WCEP-MDS event from portal_dir portal"
    )
    code, stderr = stage(tmp_path, "wcep_ingest", {"wcep_ingest": {"dump_dir": ""}}, month=None)
    assert code == 1 and "from no source (dump_dir, portal_dir and mds_files are all empty)" in stderr


@pytest.mark.slow  # the stage as a process (~3 s)
def test_wiki_with_an_empty_dump_folder_fails_naming_it(tmp_path: Path) -> None:
    (tmp_path / "dumps").mkdir()
    code, stderr = stage(tmp_path, "wiki_ingest", {"wiki_ingest": {"raw_dir": "dumps"}}, month=None)
    assert code == 1
    assert (
        last_line(stderr)
        == "wiki_ingest: cannot read input: no pages-articles dump (*.xml, *.xml.bz2) in dumps"
    )


def test_check_raw_files_passes_found_files_and_months_listed_for_the_source_only(tmp_path: Path) -> None:
    check_raw_files(tmp_path / "absent", 3, MONTH, {}, "ccnews")  # files found: no listing needed
    check_raw_files(tmp_path / "absent", 0, MONTH, {"empty_months": {"ccnews": [MONTH]}}, "ccnews")
    with pytest.raises(NoRawInput, match="is not a folder"):
        (tmp_path / "file").write_text("x")
        check_raw_files(tmp_path / "file", 0, MONTH, {"empty_months": {"ccnews": ["2025-06"]}}, "ccnews")
    # empty for GDELT on purpose says nothing about CC-News: its missing folder still stops the stage
    with pytest.raises(NoRawInput, match=r"does not exist; .* empty_months\.ccnews$"):
        check_raw_files(tmp_path / "absent", 0, MONTH, {"empty_months": {"gdelt": [MONTH]}}, "ccnews")


def test_empty_months_param_is_per_source() -> None:
    assert empty_months({}, "ccnews") == []
    declared = {"empty_months": {"ccnews": ["2025-08", "2025-07", "2025-08"], "gdelt": []}}
    assert empty_months(declared, "ccnews") == ["2025-07", "2025-08"]
    assert empty_months(declared, "gdelt") == []
    assert empty_months({"empty_months": {"ccnews": ["2025-08"]}}, "gdelt") == []  # a source left out: none
    with pytest.raises(ValueError, match="per source"):
        empty_months({"empty_months": ["2025-07"]}, "ccnews")  # the old per-month list
    with pytest.raises(ValueError, match=r"unknown sources \['wiki'\]"):
        empty_months({"empty_months": {"wiki": ["2025-07"]}}, "ccnews")
    with pytest.raises(ValueError, match=r"empty_months\.gdelt"):
        empty_months({"empty_months": {"gdelt": "2025-07"}}, "gdelt")
    with pytest.raises(ValueError, match="2025-13"):
        empty_months({"empty_months": {"ccnews": ["2025-13"]}}, "ccnews")
