"""`almanac check` over split files on disk: exit codes, the per-invariant lines, and publish refusing a leak."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from almanac.check.report import StyleReport
from almanac.cli import main
from tests.check.rows import article, question

PARAMS = {
    "months": ["2025-04"],
    "foresight": {"split": {"test_month_count": 0, "validation_month_count": 0}},  # April: train
    "publish": {},
}


def write_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(PARAMS), encoding="utf-8")
    write_rows(tmp_path / "data/articles/2025-04.parquet", [article(question()["url"], date(2025, 4, 20))])
    return tmp_path


def released(project: Path, **changes: Any) -> None:
    row = {key: value for key, value in question(**changes).items() if not key.startswith("_")}
    write_rows(project / "data/foresight/splits/train/2025-04.parquet", [row])


def test_clean_split_exits_zero_and_counts_rows(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released(project)
    assert main(["check", "openforesight", "all"]) == 0
    out = capsys.readouterr().out
    assert "openforesight all: 1 released rows, ok" in out
    assert "  ok    answer_not_in_prompt               1 checked" in out
    assert out.rstrip().endswith("check: ok")


def test_leaking_split_exits_one_naming_invariant_and_id(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    released(project, background="Question start date: 2025-04-01. Dana Whitcombe is favoured.")
    assert main(["check", "openforesight"]) == 1
    out = capsys.readouterr().out
    failing = [line for line in out.splitlines() if line.startswith("  FAIL")]
    assert len(failing) == 1
    assert "answer_not_in_prompt" in failing[0] and "q-train-1" in failing[0]
    assert "check: FAILED for openforesight" in out


def test_month_selects_files(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released(project, background="Question start date: 2025-04-01. Dana Whitcombe is favoured.")
    assert main(["check", "openforesight", "2025-05"]) == 0  # no file for May: nothing released there
    assert "0 released rows" in capsys.readouterr().out


def test_nothing_built_is_an_error_not_a_pass(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "openforesight"]) == 1
    assert "run `dvc repro` first" in capsys.readouterr().err


def test_publish_refuses_a_leaking_split(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    released(project, resolution_date=date(2025, 4, 1))  # before the question's own start date
    assert main(["publish", "openforesight", "all", "--out", str(project / "out")]) == 1
    err = capsys.readouterr().err
    assert "refusing to publish openforesight all" in err and "start_before_resolution" in err
    assert not (project / "out").exists()


@pytest.mark.slow  # runs the check stage as a process
def test_dvc_stage_fails_on_a_leak_and_writes_no_summary(project: Path) -> None:
    released(project, question_start_date=date(2025, 4, 25))  # starts after its own article
    result = subprocess.run(
        [sys.executable, "-m", "stages.check", "--style", "openforesight"],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert "released rows violate" in result.stderr and "start_not_after_article" in result.stderr
    assert not (project / "reports/check/openforesight.json").exists()
    released(project)
    ok = subprocess.run(
        [sys.executable, "-m", "stages.check", "--style", "openforesight"], cwd=project, check=False
    )
    assert ok.returncode == 0
    summary = json.loads((project / "reports/check/openforesight.json").read_text())
    assert summary["rows"] == 1 and summary["invariants"]["start_not_after_article"] == {
        "checked": 1,
        "violations": 0,
    }


def test_imported_release_is_checked_without_a_corpus(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Someone else's released questions: imported, then checked against a lab's own split windows."""
    fixture = Path(__file__).parents[1] / "fixtures/openforesight/released_sample.jsonl"
    assert main(["import", "openforesight", str(fixture), "--out", "theirs"]) == 0
    their_months = ["2025-05", "2025-06", "2025-07"]  # every one a test month
    windows = {**PARAMS, "months": their_months, "foresight": {"split": {"test_month_count": 3}}}
    (project / "theirs.yaml").write_text(yaml.safe_dump(windows), encoding="utf-8")
    capsys.readouterr()
    assert main(["--params", "theirs.yaml", "check", "openforesight", "--splits", "theirs/splits"]) == 0
    out = capsys.readouterr().out
    assert "openforesight all: 4 released rows, ok" in out
    assert "article_traceable" not in out  # no corpus to trace to: the rows carry their article's date
    # The repo's own windows put May and July outside the test split.
    assert main(["check", "openforesight", "--splits", "theirs/splits"]) == 1
    assert "resolution_in_split_window" in capsys.readouterr().out


def test_paper_queries_without_the_article_list_are_an_error(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A paper-recipe query is checked against the articles whose text survived; with that file missing
    # the checker must say what is missing, not report every query as short of articles.
    day = date(2025, 4, 10)
    write_rows(
        project / "data/mirai/queries/2025-04.parquet", [{"query_id": "q", "recipe": "paper", "date": day}]
    )
    write_rows(
        project / "data/gdelt/clean/quads.parquet",
        [
            {
                "date": day,
                "subject": "USA",
                "relation": "042",
                "object": "CHN",
                "urls": [],
                "num_daily_mentions": 1,
            }
        ],
    )
    assert main(["check", "mirai"]) == 1
    assert "articles.parquet" in capsys.readouterr().err


def test_a_long_invariant_name_widens_the_column_instead_of_touching_its_count() -> None:
    report = StyleReport("series", "all", rows=2)
    report.check("short", "a short name", [("a", None)])
    report.check(
        "news_context_not_after_forecast_date_and_more", "a 45-character name", [("a", None), ("b", "late")]
    )
    ok_line, fail_line = report.lines()[1:3]
    # 45 characters, then one space: both the ok and the FAIL line put their counts in the same column.
    assert ok_line == "  ok    short" + " " * 41 + "1 checked"
    assert fail_line.startswith("  FAIL  news_context_not_after_forecast_date_and_more 1 of 2: b (late)")
