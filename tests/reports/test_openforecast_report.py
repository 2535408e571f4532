"""openforecast report: statistics of small hand-built task splits and stage metrics, checked by hand."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from almanac.core.io import write_json, write_parquet
from almanac.core.schemas import table_from_rows
from almanac.events.samples import SAMPLE_SCHEMAS
from almanac.reports.model import Report
from almanac.reports.openforecast import FUNNEL, SERIES, build_report
from almanac.reports.scope import ReportScope
from almanac.reports.write import write_report
from tests.events.task_timelines import event, sample
from tests.reports.test_summary import MAX_SUMMARY_KEYS

APRIL, MAY, JUNE = date(2025, 4, 10), date(2025, 5, 3), date(2025, 6, 2)


def alpha(task: str, sample_id: str, **changes: Any) -> dict[str, Any]:
    """Train, cut 2025-04-10, a Wikipedia sports story titled with three words."""
    story = {"ce_id": "ce-a", "origin": "wikipedia", "ce_title": "Alpha Cup final", "topic": "Sports"}
    return sample(task, sample_id, "train", APRIL, **story, **changes)


def beta(task: str, sample_id: str, **changes: Any) -> dict[str, Any]:
    """Validation, cut 2025-05-03, a WCEP business story; the question has five words, the answer two."""
    story = {"ce_id": "ce-b", "origin": "wcep", "ce_title": "Beta merger", "topic": "Business and economy"}
    qa = {"question": "Who will sign the deal?", "answer": "the board", "argument": "subject"}
    return sample(task, sample_id, "validation", MAY, **story, **qa, **changes)


def gamma(task: str, sample_id: str, **changes: Any) -> dict[str, Any]:
    """Test, cut 2025-06-02, a Wikipedia sports story."""
    story = {"ce_id": "ce-c", "origin": "wikipedia", "ce_title": "Gamma storm season", "topic": "Sports"}
    return sample(task, sample_id, "test", JUNE, **story, **changes)


ON_CUT = event("ce-a", 3, "A B C.", "2025-04-10")  # 3 words, horizon 0
TEN_DAYS = event("ce-a", 4, "D E.", "2025-04-20")  # 2 words, horizon 10
MONTH_ONLY = event("ce-a", 5, "F.", "2025-04")  # 1 word, no day: undated
LANDFALL = event("ce-c", 2, "The storm made landfall near the coast.", "2025-06-12")  # 7 words, 10 days
REBUILD = event("ce-c", 3, "Rebuilding began.", "2025-09-30")  # 2 words, 120 days

ROWS = [
    alpha("ltf", "ltf-a", targets=[ON_CUT, TEN_DAYS, MONTH_ONLY], targets_trimmed=2),
    alpha("stf", "stf-a", targets=[ON_CUT]),
    beta("aqa", "aqa-b", target=event("ce-b", 2, "The board signs.", "2025-05-05")),  # 2 days
    beta(
        "mcac",
        "mcac-b",
        target=event("ce-b", 3, "The board signs.", "2025-05-31"),  # 28 days
        options=["the board", "x", "y", "z"],
    ),
    gamma(
        "mcnc",
        "mcnc-c",
        target=LANDFALL,
        options=[LANDFALL["text"], "x", "y", "z"],
        negatives_discarded=1,
    ),
    gamma("vqa", "vqa-c", candidate="The storm missed the coast.", label="No", mcnc_sample_id="mcnc-c"),
    gamma("ltf", "ltf-c", targets=[LANDFALL, REBUILD]),
]


def stage_metrics(items_in: int, items_out: int, reasons: dict[str, int], **extra: Any) -> dict[str, Any]:
    rejected = sum(reasons.values())
    return {
        "items_in": items_in,
        "items_out": items_out,
        "rejected": rejected,
        "rejected_by_reason": reasons,
        **extra,
    }


METRICS = {
    "wiki_ingest": stage_metrics(11, 9, {"too_short": 2}),
    "wcep_ingest": stage_metrics(13, 12, {"unexpected_layout": 1}),
    "wcep_news": stage_metrics(44, 8, {"not_in_corpus": 36}),
    "wiki_filter": stage_metrics(9, 6, {"category_people": 3}),
    "complex_events": stage_metrics(20, 17, {"duplicate_event": 2, "no_story": 1}),
    "event_timeline": stage_metrics(6, 3, {"too_few_atomic_events": 3}, duplicate_events_dropped=3),
    "event_tasks": stage_metrics(
        12,
        10,
        {"too_few_negatives": 2},
        negatives_generated=12,
        negatives_discarded=4,
        samples_with_trimmed_targets=1,
        targets_trimmed=2,
        cuts={"train": 1, "validation": 1, "test": 1, "outside_split_windows": 1},
    ),
    "event_split": stage_metrics(10, 7, {"target_after_test_start": 2, "duplicate_sample_id": 1}),
}


def write_project(root: Path, rows: list[dict[str, Any]] | None) -> None:
    """Split files of ``rows`` (None: no splits folder at all) and every stage's metrics."""
    for split in ("train", "validation", "test") if rows is not None else ():
        for task in ("stf", "ltf", "aqa", "mcnc", "mcac", "vqa"):
            kept = [row for row in rows or [] if row["split"] == split and row["task"] == task]
            path = root / "data" / "events" / "splits" / split / f"{task}.parquet"
            write_parquet(table_from_rows(kept, SAMPLE_SCHEMAS[task]), path)
    for stage, metrics in METRICS.items():
        write_json({"stage": stage, **metrics}, root / "reports" / "metrics" / f"{stage}.json")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    write_project(tmp_path, ROWS)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def whole() -> ReportScope:
    return ReportScope(("2025-05", "2025-06"), True, {})


def month(value: str) -> ReportScope:
    return ReportScope((value,), False, {})


def grid(report: Report, name: str) -> dict[tuple[str, str], Any]:
    series = report.series_named(name)
    assert series.group is not None
    return {(row[series.x], row[series.group]): row[series.y] for row in series.rows}


def test_whole_dataset_counts_lengths_and_horizons(project: Path) -> None:
    report = build_report(whole())
    metrics = report.metrics
    assert report.months == ()
    assert tuple(series.name for series in report.series) == SERIES
    assert metrics["samples"]["total"] == 7
    assert metrics["samples"]["by_split"] == {"train": 2, "validation": 2, "test": 3}
    assert metrics["samples"]["by_task"]["ltf"] == {"train": 1, "validation": 0, "test": 1}
    assert metrics["samples"]["by_task"]["vqa"] == {"train": 0, "validation": 0, "test": 1}
    assert metrics["complex_events"] == {"total": 3, "by_split": {"train": 1, "validation": 1, "test": 1}}
    assert metrics["by_month"] == {
        "2025-04": {"samples": 2, "complex_events": 1},
        "2025-05": {"samples": 2, "complex_events": 1},
        "2025-06": {"samples": 3, "complex_events": 1},
    }
    assert metrics["by_origin"] == {
        "wikipedia": {"samples": 5, "complex_events": 2},
        "wcep": {"samples": 2, "complex_events": 1},
    }
    assert metrics["by_topic"]["Sports"] == {"samples": 5, "complex_events": 2}

    # Questions: titles of 3 words (stf, ltf x2, mcnc, vqa), AQA/MCAC questions of 5 words.
    assert metrics["question_words"]["all"] == {
        "count": 7,
        "mean": 3.571,
        "median": 3.0,
        "p90": 5.0,
        "max": 5,
    }
    assert metrics["question_words"]["aqa"]["mean"] == 5.0
    # Answers: ltf 6 and 9, stf 3, aqa 2, mcac 2, mcnc 7, vqa 5 -> sorted 2 2 3 5 6 7 9.
    assert metrics["answer_words"]["all"] == {"count": 7, "mean": 4.857, "median": 5.0, "p90": 7.8, "max": 9}
    assert metrics["answer_words"]["ltf"] == {"count": 2, "mean": 7.5, "median": 7.5, "p90": 8.7, "max": 9}
    # Horizons: ltf 0, 10, 10, 120 (+1 undated); stf 0; aqa 2; mcac 28; mcnc 10.
    assert metrics["horizon_days"]["ltf"] == {
        "count": 4,
        "mean": 35.0,
        "median": 10.0,
        "p90": 87.0,
        "max": 120,
        "undated": 1,
    }
    assert metrics["horizon_days"]["all"] == {
        "count": 8,
        "mean": 22.5,
        "median": 10.0,
        "p90": 55.6,
        "max": 120,
        "undated": 1,
    }
    assert "vqa" not in metrics["horizon_days"]

    assert grid(report, "split_counts")[("ltf", "test")] == 1
    assert grid(report, "split_counts")[("aqa", "train")] == 0
    assert grid(report, "origins") == {
        ("wikipedia", "train"): 1, ("wikipedia", "validation"): 0, ("wikipedia", "test"): 1,
        ("wcep", "train"): 0, ("wcep", "validation"): 1, ("wcep", "test"): 0,
    }  # fmt: skip
    # Every WCEP topic is listed, most complex events first, then the empty ones by name.
    topics = [row["topic"] for row in report.series_named("topics").rows][::3]
    assert topics[:3] == ["Sports", "Business and economy", "Armed conflicts and attacks"]
    assert len(topics) == 10 and metrics["by_topic"]["Law and crime"] == {"samples": 0, "complex_events": 0}
    horizon = {key: n for key, n in grid(report, "horizon").items() if n}
    assert horizon == {
        ("0", "stf"): 1, ("0", "ltf"): 1, ("1-7", "aqa"): 1,
        ("8-30", "ltf"): 2, ("8-30", "mcnc"): 1, ("8-30", "mcac"): 1, ("91-180", "ltf"): 1,
    }  # fmt: skip
    answers = {key: n for key, n in grid(report, "answer_length").items() if n}
    assert answers == {
        ("0-2", "aqa"): 1, ("0-2", "mcac"): 1, ("3-5", "stf"): 1, ("3-5", "vqa"): 1,
        ("6-10", "ltf"): 2, ("6-10", "mcnc"): 1,
    }  # fmt: skip


def test_leakage_dedup_and_funnel(project: Path) -> None:
    report = build_report(whole())
    metrics = report.metrics
    released = metrics["leakage"]["released"]
    assert released["ltf"] == {
        "samples_checked": 2, "samples_with_trimmed_targets": 1, "trimmed_rate": 0.5, "target_events_trimmed": 2
    }  # fmt: skip
    assert released["all"]["samples_checked"] == 3 and released["all"]["trimmed_rate"] == 0.3333
    pipeline = metrics["leakage"]["pipeline"]
    assert pipeline["cuts_outside_split_windows"] == 1
    assert pipeline["split_rejects"]["target_after_test_start"] == 2
    assert pipeline["split_rejects"]["background_after_cut"] == 0
    assert pipeline["split_reject_rate"] == 0.2
    assert metrics["dedup"]["released"] == {
        "duplicate_sample_ids": 0, "mcnc_negatives_discarded": 1, "mcnc_samples_with_discarded_negatives": 1
    }  # fmt: skip
    dedup = metrics["dedup"]["pipeline"]
    assert (dedup["wcep_duplicate_events"], dedup["wcep_duplicate_rate"]) == (2, 0.1)
    assert (dedup["mcnc_negatives_discarded"], dedup["mcnc_negative_discard_rate"]) == (4, 0.3333)
    assert (dedup["duplicate_sample_ids"], dedup["duplicate_sample_id_rate"]) == (1, 0.1)
    assert dedup["timeline_duplicate_events_dropped"] == 3
    assert list(metrics["funnel"]) == [step.stage for step in FUNNEL]
    assert metrics["funnel"]["event_split"] == {
        "unit": "samples",
        "in": 10,
        "out": 7,
        "rejected": 3,
        "rejected_by_reason": {"target_after_test_start": 2, "duplicate_sample_id": 1},
    }
    # The tables show rates as percentages: 1 of 2 LTF samples trimmed, 2 of 10 split rows rejected.
    checks = next(t for t in report.tables if t.title == "Leakage checks").rows
    assert ("LTF samples with trimmed targets", "released", 1, 2, "50.0%") in checks
    assert ("event_split rejects: target_after_test_start", "pipeline", 2, 10, "20.0%") in checks
    assert ("Cuts outside the split windows", "pipeline", 1, "-", "-") in checks


def test_a_month_keeps_the_samples_cut_in_it(project: Path) -> None:
    report = build_report(month("2025-06"))
    metrics = report.metrics
    assert report.months == ("2025-06",)
    assert metrics["samples"]["by_split"] == {"train": 0, "validation": 0, "test": 3}
    assert metrics["by_month"] == {"2025-06": {"samples": 3, "complex_events": 1}}
    assert metrics["horizon_days"]["all"]["count"] == 3  # mcnc 10, ltf 10 and 120
    assert metrics["leakage"]["released"]["ltf"]["samples_with_trimmed_targets"] == 0
    # The funnel is whole-dataset whatever the month, and the report says so.
    assert metrics["funnel"]["wiki_ingest"]["in"] == 11
    assert any("whole dataset" in note for note in report.notes)


def test_a_month_without_samples_reports_zeros(project: Path, tmp_path: Path) -> None:
    report = build_report(month("2025-08"))
    metrics = report.metrics
    assert metrics["samples"]["total"] == 0
    assert set(metrics["samples"]["by_task"]) == {"stf", "ltf", "aqa", "mcnc", "mcac", "vqa"}
    assert metrics["question_words"]["all"] == {
        "count": 0,
        "mean": None,
        "median": None,
        "p90": None,
        "max": None,
    }
    assert metrics["leakage"]["released"]["all"]["trimmed_rate"] is None
    assert {row["complex_events"] for row in report.series_named("topics").rows} == {0}
    assert len(report.series_named("origins").rows) == 2 * 3  # wikipedia, wcep x three splits
    assert all(row["samples"] == 0 for row in report.series_named("split_counts").rows)
    written = write_report(report, tmp_path / "out")
    assert (tmp_path / "out" / "figures" / "horizon.png") in written


def test_missing_splits_folder_and_a_bad_date(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_project(tmp_path, None)
    monkeypatch.chdir(tmp_path)
    assert build_report(whole()).metrics["samples"]["total"] == 0
    write_project(tmp_path, [])  # every file present, every file empty
    assert build_report(whole()).metrics["samples"]["by_task"]["stf"] == {
        "train": 0,
        "validation": 0,
        "test": 0,
    }
    # A target dated before its cut day (a broken sample) shows in a "<0" bin instead of vanishing.
    early = event("ce-a", 1, "Too early.", "2025-04-01")
    write_project(tmp_path, [alpha("aqa", "aqa-early", target=early)])
    report = build_report(whole())
    assert report.metrics["horizon_days"]["aqa"]["max"] == -9
    assert grid(report, "horizon")[("<0", "aqa")] == 1


def test_unknown_task_file_is_an_error(project: Path) -> None:
    stray = table_from_rows([alpha("stf", "stf-x")], SAMPLE_SCHEMAS["stf"])
    write_parquet(stray, project / "data" / "events" / "splits" / "train" / "summary.parquet")
    with pytest.raises(ValueError, match="unknown task"):
        build_report(whole())


def test_same_inputs_give_identical_outputs(project: Path, tmp_path: Path) -> None:
    first, second = build_report(whole()), build_report(whole())
    assert first == second
    paths_a = write_report(first, tmp_path / "a")
    paths_b = write_report(second, tmp_path / "b")
    for path_a, path_b in zip(paths_a, paths_b, strict=True):
        assert path_a.read_bytes() == path_b.read_bytes(), path_a.name


def test_whole_dataset_summary(project: Path) -> None:
    report = build_report(whole())
    assert report.summary == {
        "check": "not run",  # no check file in the fixture
        "read": "11 pages",  # wiki_ingest read 11 pages (METRICS)
        "released": "7 samples",
        # by cut month: alpha's two samples in April (train), beta's two in May, gamma's three in June
        "train": 2,
        "validation": 2,
        "test": 3,
        # the fixture's metrics carry no LLM counters
        "llm_requests": 0,
        "llm_tokens": 0,
        "llm_cost_usd": 0.0,
    }
    assert len(report.summary) == MAX_SUMMARY_KEYS
    assert build_report(month("2025-05")).summary is None


def test_report_says_which_backend_wrote_the_timelines(project: Path) -> None:
    offline = {
        "llm": {"roles": {"classifier": {"backend": "offline", "model": "m"}, "annotator": {"model": "m"}}}
    }
    statement = build_report(ReportScope(("2025-06",), False, offline)).authorship
    assert statement.startswith(
        "**These timelines, event arguments and task texts were not written by a language model.**"
    )
    assert "classifier: offline, `m` (from params.yaml; the rows do not name it)" in statement
    hosted = {
        "llm": {"roles": {"classifier": {"model": "c"}, "annotator": {"backend": "openai", "model": "a1"}}}
    }
    statement = build_report(ReportScope(("2025-06",), False, hosted)).authorship
    assert statement.startswith(
        "The timelines, event arguments and task texts were written by the model `a1`"
    )
    # No roles in params: nothing to go by, and the report says so rather than guessing.
    assert build_report(month("2025-06")).authorship.startswith("**Which backend wrote these timelines")
