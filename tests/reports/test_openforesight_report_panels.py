"""The OpenForesight report's whole-dataset summary, panels and question authors, on hand-made files."""

from __future__ import annotations

from pathlib import Path

from almanac.core.io import write_json
from almanac.reports.openforesight import PANELS, SERIES, build_report
from almanac.reports.scope import ReportScope
from almanac.reports.write import write_report
from tests.reports.openforesight_report_project import MONTHS, PARAMS, PER_MONTH, project, stage_metrics
from tests.reports.test_summary import MAX_SUMMARY_KEYS

__all__ = ["project"]  # pytest fixtures used by name


def test_whole_dataset_summary_and_panels(project: Path, tmp_path: Path) -> None:
    # Two LLM stages: qgen in January (generator) and validate in February (validator).
    qgen = stage_metrics("foresight_qgen", PER_MONTH["foresight_qgen"]["2025-01"])
    generator = {"generator.requests": 8, "generator.refused": 1, "generator.prompt_tokens": 1000,
                 "generator.completion_tokens": 200, "generator.cost_usd": 0.0125}  # fmt: skip
    write_json({**qgen, "llm": generator}, "reports/metrics/foresight_qgen/2025-01.json")
    validate = stage_metrics("foresight_validate", PER_MONTH["foresight_validate"]["2025-02"])
    validator = {"validator.requests": 5, "validator.refused": 2, "validator.cost_usd": 0.0025}
    write_json({**validate, "llm": validator}, "reports/metrics/foresight_validate/2025-02.json")
    invariants = {"ids_unique": {"checked": 4, "violations": 0}, "dates": {"checked": 4, "violations": 0}}
    write_json({"ok": True, "rows": 4, "invariants": invariants}, "reports/check/openforesight.json")

    report = build_report(ReportScope(MONTHS, True, PARAMS))

    assert report.summary == {
        "check": "ok",
        # articles the first step read: 4 + 3 + 2 (PER_MONTH); released: the four questions q1..q4
        "read": "9 articles",
        "released": "4 questions",
        # q1 q2 train (January), q3 validation (February), q4 test (March)
        "train": 2,
        "validation": 1,
        "test": 1,
        # generator + validator: requests 8 + 5; tokens 1000 + 200; cost 0.0125 + 0.0025
        "llm_requests": 13,
        "llm_tokens": 1200,
        "llm_cost_usd": 0.015,
    }
    assert report.metrics["llm"]["requests"] == 13  # the report's metrics.json keeps every counter
    # The detail is in metrics.json: each funnel step names its unit, qgen also what it made.
    funnel = report.metrics["funnel"]
    assert (funnel["foresight_qgen"]["unit"], funnel["foresight_qgen"]["made_unit"]) == (
        "articles",
        "questions",
    )
    assert funnel["foresight_validate"]["unit"] == "questions"
    assert report.metrics["by_split_month"]["train"] == {"2025-01": 2}
    assert len(report.summary) == MAX_SUMMARY_KEYS  # the columns of `dvc metrics show`
    assert report.panels == PANELS
    assert sorted(name for panel in PANELS for name in panel.series) == sorted(SERIES)  # each series once

    written = write_report(report, tmp_path / "out")
    assert (tmp_path / "out" / "summary.json") in written
    assert [path.name for path in written if path.parent.name == "panels"] == [
        "1_overview.png",
        "2_content.png",
        "3_distributions.png",
    ]
    assert all(path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" for path in written if path.suffix == ".png")


def test_a_month_report_has_no_summary_or_panels(project: Path, tmp_path: Path) -> None:
    report = build_report(ReportScope(("2025-02",), False, PARAMS))
    assert report.summary is None and report.panels == ()
    written = write_report(report, tmp_path / "out")
    assert not (tmp_path / "out" / "summary.json").exists() and not (tmp_path / "out" / "panels").exists()
    assert len(written) == 2 + 2 * len(SERIES)  # metrics.json, report.md, a CSV and a figure per series


def test_report_says_who_wrote_the_questions_and_shows_one(project: Path) -> None:
    offline = {"generator": {"backend": "offline", "model": "gen"}, "validator": {"model": "val"}}
    report = build_report(ReportScope(MONTHS, True, {**PARAMS, "llm": {"roles": offline}}))
    assert report.authorship.startswith("**These questions were not written by a language model.**")
    assert "editor: backend unknown, not in params.yaml" in report.authorship
    assert report.example is not None and report.example.note.startswith("One released question (`q1`, train")
    assert ("Article title", "Headline") in report.example.rows

    hosted = {**offline, "generator": {"backend": "openai", "model": "gen"}}
    report = build_report(ReportScope(("2025-03",), False, {**PARAMS, "llm": {"roles": hosted}}))
    assert report.authorship.startswith("The questions were written by the model `gen` (`backend: openai`).")
    assert report.example is not None and report.example.note.startswith("One released question (`q4`, test")
