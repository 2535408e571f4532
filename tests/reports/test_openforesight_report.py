"""The OpenForesight report on small hand-made split files and stage metrics; numbers checked by hand."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from almanac.core.io import write_json, write_parquet
from almanac.core.schemas import table_from_rows
from almanac.reports import openforesight_stats as stats
from almanac.reports.model import Report, Table
from almanac.reports.openforesight import SERIES, build_report
from almanac.reports.scope import ReportScope
from almanac.reports.write import write_report
from tests.reports.openforesight_report_project import (
    MONTHS,
    PARAMS,
    PER_MONTH,
    RELEASED_SCHEMA,
    project,
    released,
    stage_metrics,
)

__all__ = ["project"]  # pytest fixtures used by name


def table_named(report: Report, title: str) -> Table:
    (table,) = [table for table in report.tables if table.title == title]
    return table


def test_whole_dataset_counts_lengths_and_horizons(project: Path) -> None:
    report = build_report(ReportScope(MONTHS, True, PARAMS))
    metrics = report.metrics
    assert report.months == MONTHS
    assert metrics["questions"] == 4
    assert metrics["by_split"] == {"train": 2, "validation": 1, "test": 1}
    assert list(metrics["by_split"]) == ["train", "validation", "test"]
    assert metrics["by_month"] == {"2025-01": 2, "2025-02": 1, "2025-03": 1}
    assert metrics["by_split_month"] == {
        "train": {"2025-01": 2},
        "validation": {"2025-02": 1},
        "test": {"2025-03": 1},
    }
    assert metrics["by_source"] == {"a.example": 3, "b.example": 1}
    assert metrics["by_answer_class"] == {"(none)": 1, "location": 1, "name": 1, "organization": 1}
    # sorted 5 5 9 10: median (5 + 9) / 2; p90 at position 0.9 * 3 = 2.7 -> 9 + 0.7 * (10 - 9)
    assert metrics["question_words"] == {"count": 4, "mean": 7.25, "median": 7.0, "p90": 9.7, "max": 10}
    # sorted 1 2 2 3 (the padded, doubly spaced answer counts 2 words)
    assert metrics["answer_words"] == {"count": 4, "mean": 2.0, "median": 2.0, "p90": 2.7, "max": 3}
    # sorted 3 7 10 30: p90 = 10 + 0.7 * 20
    assert metrics["horizon_days"] == {"count": 4, "mean": 12.5, "median": 8.5, "p90": 24.0, "max": 30}

    assert tuple(series.name for series in report.series) == SERIES
    rows = {series.name: [tuple(row.values()) for row in series.rows] for series in report.series}
    assert rows["split_counts"] == [("train", 2), ("validation", 1), ("test", 1)]
    assert rows["answer_types"] == [("(none)", 1), ("location", 1), ("name", 1), ("organization", 1)]
    assert rows["sources"] == [("a.example", 3), ("b.example", 1)]
    assert rows["question_length"] == [("5", 2), ("6", 0), ("7", 0), ("8", 0), ("9", 1), ("10", 1)]
    assert rows["answer_length"] == [("1", 1), ("2", 2), ("3", 1)]
    # 3..30 days needs 28 one-day bins, more than 20: weekly bins from 0
    assert rows["horizon"] == [("0-6", 1), ("7-13", 2), ("14-20", 0), ("21-27", 0), ("28-34", 1)]
    horizon = report.series_named("horizon")
    assert (horizon.x, horizon.y, horizon.group) == ("days", "questions", None)
    assert report.series_named("sources").kind == "barh"

    grid = table_named(report, "Questions per split and resolution month")
    assert grid.headers == ("Split", "2025-01", "2025-02", "2025-03", "Total")
    assert grid.rows == (
        ("train", 2, 0, 0, 2),
        ("validation", 0, 1, 0, 1),
        ("test", 0, 0, 1, 1),
        ("Total", 2, 1, 1, 4),
    )
    lengths = table_named(report, "Lengths and horizon")
    assert lengths.rows[2][1:] == (4, 12.5, 8.5, 24.0, 30)
    assert table_named(report, "Questions per news source").rows == (
        ("a.example", 3, "75.0%"),
        ("b.example", 1, "25.0%"),
    )


def test_leakage_dedup_yield_and_funnel(project: Path) -> None:
    report = build_report(ReportScope(MONTHS, True, PARAMS))
    assert report.metrics["leakage"] == {
        "flagged_in_splits": 1,
        "flagged_rate": 0.25,
        "cross_question_checked": 4,
        "cross_question_found": 1,
        "cross_question_dropped": 0,
        "cross_question_rate": 0.25,
        "editor_checked": 11,  # 5 + 4 + 2
        "editor_edited": 3,
        "editor_edit_rate": 0.2727,
        "rescan_dropped": 2,  # llm_failed is not a re-scan drop
        "rescan_drop_rate": 0.1818,
        "rescan_dropped_by_kind": {"alias": 1, "exact": 1},
    }
    assert report.metrics["dedup"] == {
        "question_checked": 5,
        "question_duplicates": 1,
        "question_dedup_rate": 0.2,
        "question_candidate_pairs": 3,
        "question_verified_pairs": 1,
        "corpus_checked": 45,  # 50 read minus 5 outside the months
        "corpus_exact_duplicates": 2,
        "corpus_near_duplicates": 3,
        "corpus_dedup_rate": 0.1111,
        "corpus_candidate_pairs": 4,
        "corpus_verified_pairs": 3,
    }
    assert report.metrics["yield"] == {"articles": 9, "generated": 15, "after_dates": 5, "kept_rate": 0.3333}
    funnel = report.metrics["funnel"]
    assert list(funnel) == [
        "foresight_qgen",
        "foresight_validate",
        "foresight_select",
        "foresight_leakage",
        "foresight_answer_type",
        "foresight_dates",
        "foresight_question_dedup",
        "foresight_split",
    ]
    assert funnel["foresight_qgen"] == {
        "unit": "articles",  # 9 articles read, 6 gave questions, 15 questions made (yield "generated")
        "in": 9,
        "out": 6,
        "rejected": 3,
        "rejected_by_reason": {"no_question": 3},
        "made": 15,
        "made_unit": "questions",
    }
    assert funnel["foresight_dates"]["rejected_by_reason"] == {"unparseable_date": 2}
    steps = [row["step"] for row in report.series_named("funnel").rows]
    assert steps[0] == "Question generation (articles)"
    assert steps[-1] == "Final set, all months (questions)"

    rates = {row[0]: row[2:] for row in table_named(report, "Leakage and dedup").rows}
    assert rates["Flagged cross-question leak (released)"] == (1, 4, "25.0%")
    assert rates["Dropped by the re-scan: alias match"] == (1, 11, "9.1%")
    assert rates["Corpus articles: near duplicates"] == (3, 45, "6.7%")
    assert any("mode: flag" in note for note in report.notes)


def test_one_month_mixes_resolution_and_publish_months_and_says_so(project: Path) -> None:
    report = build_report(ReportScope(("2025-02",), False, PARAMS))
    metrics = report.metrics
    assert metrics["questions"] == 1
    assert metrics["by_split"] == {"train": 0, "validation": 1, "test": 0}
    assert metrics["by_month"] == {"2025-02": 1}
    assert metrics["yield"] == {"articles": 3, "generated": 5, "after_dates": 2, "kept_rate": 0.4}
    assert metrics["leakage"]["editor_checked"] == 4
    assert metrics["leakage"]["editor_edit_rate"] == 0.25
    assert metrics["leakage"]["rescan_dropped"] == 0
    assert metrics["funnel"]["foresight_qgen"]["in"] == 3
    assert metrics["funnel"]["foresight_question_dedup"]["in"] == 5  # whole-dataset step
    assert metrics["dedup"]["question_checked"] == 5
    notes = " ".join(report.notes)
    assert "resolving in 2025-02" in notes and "articles published in 2025-02" in notes
    assert "question dedup and the final split" in notes


def test_empty_month_gives_zeros_and_renders(project: Path, tmp_path: Path) -> None:
    write_parquet(RELEASED_SCHEMA.empty_table(), "data/foresight/splits/test/2025-04.parquet")
    for stage in PER_MONTH:
        counts = (
            (1, 0, {"no_question": 1}, {"candidates": 0}) if stage == "foresight_qgen" else (0, 0, {}, {})
        )
        write_json(stage_metrics(stage, counts), f"reports/metrics/{stage}/2025-04.json")
    report = build_report(ReportScope(("2025-04",), False, PARAMS))
    metrics = report.metrics
    assert metrics["questions"] == 0
    assert metrics["by_split"] == {"train": 0, "validation": 0, "test": 0}
    assert metrics["by_month"] == {"2025-04": 0}
    assert metrics["by_source"] == {} and metrics["by_answer_class"] == {}
    assert metrics["question_words"] == {"count": 0, "mean": None, "median": None, "p90": None, "max": None}
    assert metrics["leakage"]["flagged_rate"] == 0.0
    assert metrics["yield"] == {"articles": 1, "generated": 0, "after_dates": 0, "kept_rate": 0.0}
    assert report.series_named("horizon").rows == ()
    assert [row["questions"] for row in report.series_named("split_counts").rows] == [0, 0, 0]
    assert table_named(report, "Lengths and horizon").rows[0] == (
        "Question title (words)",
        0,
        "-",
        "-",
        "-",
        "-",
    )
    written = write_report(report, tmp_path / "out")
    assert (tmp_path / "out" / "figures" / "horizon.png") in written
    assert (tmp_path / "out" / "plots" / "sources.csv").read_text() == "news_source,questions\n"


def test_same_inputs_same_report(project: Path, tmp_path: Path) -> None:
    first = build_report(ReportScope(MONTHS, True, PARAMS))
    second = build_report(ReportScope(MONTHS, True, PARAMS))
    assert first == second
    one = write_report(first, tmp_path / "one", figures=False)
    two = write_report(second, tmp_path / "two", figures=False)
    assert [path.read_bytes() for path in one] == [path.read_bytes() for path in two]


def test_missing_stage_metrics_is_named(project: Path) -> None:
    Path("reports/metrics/dedup.json").unlink()
    with pytest.raises(FileNotFoundError, match="stage dedup"):
        build_report(ReportScope(MONTHS, True, PARAMS))


def test_histogram_overflow_bin_keeps_outliers_from_squashing_the_bars() -> None:
    con = duckdb.connect()
    con.register("questions", pa.table({"v": [*range(100), 1000]}))
    rows = stats.histogram(con, "v", stats.WORD_WIDTHS)
    # 0..99 fit 20 bins of 5; the single 1000 (above the 99th percentile) goes to the overflow bin
    assert rows[0] == ("0-4", 5) and rows[19] == ("95-99", 5)
    assert rows[20:] == [("100+", 1)]
    assert sum(n for _, n in rows) == 101


def test_split_grid_totals_a_split_spanning_two_months(project: Path) -> None:
    extra = released("q5", "train", "Who will score?", "Bo", date(2025, 2, 1), date(2025, 2, 2))
    write_parquet(table_from_rows([extra], RELEASED_SCHEMA), "data/foresight/splits/train/2025-02.parquet")
    report = build_report(ReportScope(MONTHS, True, PARAMS))
    assert table_named(report, "Questions per split and resolution month").rows == (
        ("train", 2, 1, 0, 3),
        ("validation", 0, 1, 0, 1),
        ("test", 0, 0, 1, 1),
        ("Total", 2, 2, 1, 5),
    )
    assert report.metrics["by_split_month"]["train"] == {"2025-01": 2, "2025-02": 1}
    assert report.metrics["by_month"] == {"2025-01": 2, "2025-02": 2, "2025-03": 1}
