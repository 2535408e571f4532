"""The series report from released splits on disk: counts per provider, horizon and split, the base rate of
"higher" and the baselines' scores worked by hand (tests/series/test_questions.py's two questions)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from almanac.reports.scope import ReportScope
from almanac.reports.series import build_report
from almanac.series.questions import SeriesQuestionConfig
from almanac.series.release import SeriesSplitConfig, build_release
from tests.series.test_questions import ROWS


def test_report_counts_base_rate_and_baselines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    split = SeriesSplitConfig(train_months=("2025-04",), test_months=("2025-05",))
    tables, ledger = build_release(ROWS, split, SeriesQuestionConfig(horizons_days=(30,), forecast_days=(1,)))
    for (name, month), table in tables.items():
        (tmp_path / "data/series/splits" / name).mkdir(parents=True, exist_ok=True)
        pq.write_table(table, tmp_path / "data/series/splits" / name / f"{month}.parquet")
    metrics = tmp_path / "reports/metrics"
    metrics.mkdir(parents=True)
    ingest = {
        "stage": "series_ingest",
        "items_in": 5,
        "items_out": 5,
        "rejected": 0,
        "rejected_by_reason": {},
    }
    (metrics / "series_ingest.json").write_text(json.dumps(ingest))
    (metrics / "series_questions.json").write_text(json.dumps(ledger.metrics(), default=str))
    report = build_report(ReportScope((), True, {}))
    assert report.metrics["questions_by_split"] == {"test": 2}
    assert report.metrics["questions_by_horizon"] == {"30": 2}
    counts = next(t for t in report.tables if t.title.startswith("Questions per provider"))
    assert counts.rows == (("fred", 30, "test", 1, 1),)
    binary = report.metrics["baselines"]["test"]["binary"]
    # It rose (101 -> 101.5): base rate 1; no change says p=0: Brier (0-1)^2 = 1; last trend (up) p=1: 0
    assert binary["base_rate_higher"] == 1.0
    assert (binary["no_change"]["mean"], binary["last_trend"]["mean"], binary["chance"]["mean"]) == (
        1.0,
        0.0,
        0.25,
    )
    assert report.metrics["sigma_sources"] == {"recent_values": 1}
    assert report.summary is not None and report.summary["test"] == 2
    # build_release alone attaches no context: the report says so instead of leaving it out
    assert report.metrics["news_context"] == {"questions_with_context": 0, "chunks": 0}
    assert any(note.startswith("No question carries news context (0 of 2)") for note in report.notes)
