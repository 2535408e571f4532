"""The series stages' library: the manifest-driven ingest, the split release and `almanac check series`
reading them from disk (a planted revised value in a released prompt is reported)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from almanac.check.run import STYLES, check_style
from almanac.series.ingest import ManifestError, SeriesIngestConfig, ingest
from almanac.series.questions import SeriesQuestionConfig
from almanac.series.release import SeriesSplitConfig, build_release
from almanac.series.schema import OBSERVATION_SCHEMA
from tests.series.test_questions import ROWS

WIDE = """year,quarter,gdp,rate
2024,1,100.0,5.0
2024,2,101.5,.
2024,5,1.0,1.0
2024,3,abc,4.5
"""


def write_inputs(folder: Path, files: list[dict[str, Any]]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "wide.csv").write_text(WIDE, encoding="utf-8")
    (folder / "manifest.json").write_text(json.dumps({"files": files}), encoding="utf-8")
    return folder


WIDE_ENTRY = {
    "path": "wide.csv",
    "reader": "year_quarter",
    "columns": {
        "gdp": {"series_id": "t/gdp", "title": "GDP", "unit": "bn", "frequency": "Q"},
        "rate": {"series_id": "t/rate", "title": "Rate", "unit": "%", "frequency": "Q"},
    },
}


def test_ingest_keeps_every_readable_value_and_rejects_the_rest_with_reasons(tmp_path: Path) -> None:
    folder = write_inputs(tmp_path / "in", [WIDE_ENTRY, {"path": "missing.json", "reader": "dbnomics"}])
    table, ledger = ingest(folder, SeriesIngestConfig(lag_days=10))
    rows = table.to_pylist()
    # By hand: line 2 gives two values; line 3 gdp 101.5 and a missing rate (".", kept as null);
    # line 4 has quarter 5 (one reject for the line); line 5 gdp "abc" (reject) and rate 4.5.
    assert [(r["series_id"], r["period_start"], r["value"]) for r in rows] == [
        ("t/gdp", date(2024, 1, 1), 100.0),
        ("t/gdp", date(2024, 4, 1), 101.5),
        ("t/rate", date(2024, 1, 1), 5.0),
        ("t/rate", date(2024, 4, 1), None),
        ("t/rate", date(2024, 7, 1), 4.5),
    ]
    # Q1 ends March 31: known 10 days later, flagged as possibly revised
    assert rows[0]["known_date"] == date(2024, 4, 10) and rows[0]["revised_unknown"] is True
    assert ledger.rejected_by_reason == {"unreadable_file": 1, "unreadable_record": 2}
    assert (ledger.items_in, ledger.items_out) == (8, 5)
    assert table.schema.equals(OBSERVATION_SCHEMA)


def test_a_second_row_for_the_same_period_and_day_is_a_reject(tmp_path: Path) -> None:
    folder = write_inputs(tmp_path / "in", [WIDE_ENTRY, WIDE_ENTRY])
    table, ledger = ingest(folder, SeriesIngestConfig(lag_days=10))
    assert table.num_rows == 5
    assert ledger.rejected_by_reason == {"duplicate_observation": 5, "unreadable_record": 4}


def test_a_bad_manifest_is_a_configuration_error(tmp_path: Path) -> None:
    folder = write_inputs(tmp_path / "in", [{"path": "wide.csv", "reader": "excel"}])
    with pytest.raises(ManifestError, match="reader"):
        ingest(folder, SeriesIngestConfig())


def test_split_months_must_be_ordered_and_disjoint() -> None:
    with pytest.raises(ValueError, match="train months < validation"):
        SeriesSplitConfig(train_months=("2025-05",), test_months=("2025-04",))
    with pytest.raises(ValueError, match="two splits"):
        SeriesSplitConfig(train_months=("2025-04",), validation_months=("2025-04",))


SPLIT = SeriesSplitConfig(train_months=("2025-04",), test_months=("2025-05",))
CONFIG = SeriesQuestionConfig(horizons_days=(30,), forecast_days=(1,))


def test_release_groups_questions_by_split_and_resolution_month() -> None:
    tables, ledger = build_release(ROWS, SPLIT, CONFIG)
    # By hand (tests/series/test_questions.py): forecast April 1 + 30 days resolves May 1 (test);
    # May 1 + 30 = May 31 has no release yet (one reject); March 1 knows only January (min_history 2).
    assert {key: table.num_rows for key, table in tables.items()} == {("test", "2025-05"): 2}
    assert ledger.rejected_by_reason == {"not_resolved_yet": 1}
    assert (ledger.items_in, ledger.items_out, ledger.extra["questions"]) == (2, 1, 2)


def released(root: Path, tables: dict[tuple[str, str], pa.Table], observations: list[dict[str, Any]]) -> None:
    for (split, month), table in tables.items():
        (root / "data/series/splits" / split).mkdir(parents=True, exist_ok=True)
        pq.write_table(table, root / "data/series/splits" / split / f"{month}.parquet")
    pq.write_table(
        pa.Table.from_pylist(observations, schema=OBSERVATION_SCHEMA),
        root / "data/series/observations.parquet",
    )


PARAMS = {"series": {"split": {"train_months": ["2025-04"], "test_months": ["2025-05"]}}}


def test_check_series_reads_the_release_and_reports_a_planted_revised_value(tmp_path: Path) -> None:
    assert "series" in STYLES  # `almanac check all` runs it
    tables, _ = build_release(ROWS, SPLIT, CONFIG)
    released(tmp_path, tables, ROWS)
    assert check_style("series", "all", PARAMS, tmp_path).ok
    rows = tables[("test", "2025-05")].to_pylist()
    rows[0]["prompt_values"][1]["value"] = 100.5  # February's revision, published April 10 > April 1
    planted = pa.Table.from_pylist(rows, schema=tables[("test", "2025-05")].schema)
    released(tmp_path, {("test", "2025-05"): planted}, ROWS)
    report = check_style("series", "all", PARAMS, tmp_path)
    assert {result.name: list(result.failures) for result in report.violated} == {
        "prompt_values_as_of_forecast_date": [rows[0]["question_id"]]
    }


def test_check_series_reports_unvintaged_questions_unless_allowed(tmp_path: Path) -> None:
    unvintaged = [{**row, "revised_unknown": True} for row in ROWS]
    allowed = SeriesQuestionConfig(horizons_days=(30,), forecast_days=(1,), allow_unvintaged=True)
    tables, _ = build_release(unvintaged, SPLIT, allowed)
    released(tmp_path, tables, unvintaged)
    assert all(tables[("test", "2025-05")].column("values_may_be_revised").to_pylist())
    permitted = {"series": {**PARAMS["series"], "questions": {"allow_unvintaged": True}}}
    assert check_style("series", "all", permitted, tmp_path).ok
    report = check_style("series", "all", PARAMS, tmp_path)
    assert [result.name for result in report.violated] == ["unvintaged_only_when_allowed"]
