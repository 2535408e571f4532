"""OpenForecast-style report: counts, lengths, horizons, leakage and dedup of the released task samples.

Rows are selected by the month of their cut day (the forecast start); the whole-dataset report keeps
every row, including train cuts before params' months. The complex-event stages run once over every
month, so the funnel and the pipeline-side leakage/dedup counts always describe the whole dataset.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from almanac.core.layout import METRICS
from almanac.core.lazy import lazy_module
from almanac.events.recipe import RECIPE
from almanac.events.topics import EVENT_TOPICS
from almanac.reports.authorship import authorship_statement, role_authors
from almanac.reports.event_stats import ORIGINS
from almanac.reports.funnel import (
    FunnelStep,
    funnel_metrics,
    funnel_series,
    funnel_steps,
    funnel_table,
    llm_usage,
    rejects_table,
)
from almanac.reports.model import FigureKind, Panel, Report, Series, Table
from almanac.reports.openforecast_pipeline import (
    dedup_checks,
    leakage_checks,
    pipeline_dedup,
    pipeline_leakage,
)
from almanac.reports.openforecast_stats import (
    HORIZON_EDGES,
    TASK_ORDER,
    TEXTS,
    WORD_EDGES,
    counts_by,
    distribution,
    histogram,
    load_samples,
    released_duplicates,
    splits,
    totals_by,
    trimming,
    undated_targets,
)
from almanac.reports.openforecast_tables import (
    check_table,
    distribution_table,
    grid_table,
    shortcut_table,
    texts_table,
)
from almanac.reports.scope import ReportScope
from almanac.reports.styles import get_style, read_split_tables
from almanac.reports.summary import style_summary

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

EVENT_ROLES = ("classifier", "annotator")  # the LLM roles of the OpenForecast branch (its card's roles)
TIMELINE_WRITER = "annotator"  # extracts timelines and arguments and writes negative options

SERIES = ("split_counts", "topics", "origins", "question_length", "answer_length", "horizon", "funnel")
PANELS = (
    Panel("1_overview", "OpenForecast: funnel and samples per task and split", ("funnel", "split_counts")),
    Panel("2_content", "OpenForecast: complex events per origin and topic", ("origins", "topics")),
    Panel(
        "3_distributions",
        "OpenForecast: question and answer length, horizon",
        ("question_length", "answer_length", "horizon"),
    ),
)
# The recipe's steps (almanac.events.recipe); short labels: the figure puts "label (unit)" beside each bar.
FUNNEL = tuple(FunnelStep(step.stage, step.label, step.unit, step.per_month) for step in RECIPE.funnel())


def build_report(scope: ReportScope, metrics_dir: Path = METRICS) -> Report:
    style = get_style("openforecast")
    released = read_split_tables(style, None if scope.whole else scope.months)
    con = load_samples(released)
    choice_tables = [table for key, table in released.items() if key.config in ("mcnc", "mcac", "vqa")]
    funnel = funnel_steps(FUNNEL, scope.months, metrics_dir)
    leakage = {"released": trimming(con), "pipeline": pipeline_leakage(metrics_dir)}
    dedup = {"released": released_duplicates(con), "pipeline": pipeline_dedup(metrics_dir)}
    by_task = counts_by(con, "task", TASK_ORDER)
    by_origin, by_topic = counts_by(con, "origin", ORIGINS), counts_by(con, "topic", EVENT_TOPICS)
    task_names, split_names = list(by_task), splits(con)
    horizon = distribution(con, "horizons", "days")
    undated = undated_targets(con)
    for task, count in undated.items():
        horizon[task]["undated"] = count
    horizon["all"]["undated"] = sum(undated.values())
    metrics: dict[str, Any] = {
        "samples": _sample_counts(con, by_task, task_names, split_names),
        "complex_events": _complex_event_counts(con, split_names),
        "by_month": totals_by(con, "month"),
        "by_origin": totals_by(con, "origin", ORIGINS),
        "by_topic": totals_by(con, "topic", EVENT_TOPICS),
        "question_words": distribution(con, "samples", "question_words"),
        "answer_words": distribution(con, "samples", "answer_words"),
        "horizon_days": horizon,
        "leakage": leakage,
        "dedup": dedup,
        "funnel": funnel_metrics(funnel),
        "llm": llm_usage(funnel),
    }
    origins = list(by_origin)
    topics = sorted(by_topic, key=lambda t: (-metrics["by_topic"][t]["complex_events"], t))
    series = (
        _grid_series("split_counts", "Samples per task and split", by_task, task_names, "task", "samples"),
        _grid_series("topics", "Complex events per topic", by_topic, topics, "topic", "complex_events"),
        _grid_series("origins", "Complex events per origin", by_origin, origins, "origin", "complex_events"),
        _histogram_series(con, "question_length", "Question length", "samples", "question_words"),
        _histogram_series(con, "answer_length", "Answer length", "samples", "answer_words"),
        _histogram_series(con, "horizon", "Forecast horizon", "horizons", "days"),
        funnel_series(funnel),
    )
    assert tuple(s.name for s in series) == SERIES
    tables = (
        grid_table(
            "Samples per task and split", "Task", by_task, totals_by(con, "task", TASK_ORDER), "samples"
        ),
        _month_table(con, metrics["by_month"]),
        grid_table("Origins", "Origin", by_origin, metrics["by_origin"], "complex_events"),
        grid_table(
            "Topics", "Topic", {t: by_topic[t] for t in topics}, metrics["by_topic"], "complex_events"
        ),
        texts_table(TEXTS),
        distribution_table("Question length (words)", metrics["question_words"], "Samples"),
        distribution_table("Answer length (words)", metrics["answer_words"], "Samples"),
        distribution_table("Horizon (days from cut day to target event day)", horizon, "Target events"),
        check_table("Leakage checks", leakage_checks(leakage)),
        check_table("Duplicates removed", dedup_checks(dedup)),
        shortcut_table(choice_tables, scope.params),
        funnel_table(funnel),
        rejects_table(funnel),
    )
    months = ", ".join(scope.months)
    notes = (
        "Sample statistics cover every released sample, whatever its cut month."
        if scope.whole
        else f"Sample statistics cover the samples whose cut day (forecast start) falls in {months}.",
        "Funnel steps " + ", ".join(step.stage for step in FUNNEL) + " count the whole dataset, every month: "
        "these stages run once over all months; so do the 'pipeline' leakage and duplicate counts.",
        "STF, LTF, MCNC and VQA samples carry no question text; their question is the complex event title "
        "(what happens next in it?). Answers: STF/LTF target event texts joined, MCNC the gold option, "
        "VQA the candidate event.",
        "Horizon: days from the cut day to each target event's day (STF/LTF every target, AQA/MCNC/MCAC the "
        "target event); events dated only to a month or year are counted as undated, VQA has no dated event. "
        "The cut day is the day of the first target event (every background event is dated before it), "
        "so the first target of a sample has horizon 0.",
    )
    return Report(
        "openforecast",
        () if scope.whole else scope.months,
        metrics,
        series,
        tables,
        notes,
        summary=(
            style_summary("openforecast", _samples_by_split_month(con), metrics, "samples")
            if scope.whole
            else None
        ),
        panels=PANELS if scope.whole else (),
        authorship=authorship_statement(
            # The rows name no model: the backend comes from params alone (the roles are stage params).
            role_authors(scope.params, EVENT_ROLES, {}),
            writer=TIMELINE_WRITER,
            records="timelines, event arguments and task texts",
            sources="Wikipedia and WCEP texts",
        ),
    )


def _sample_counts(
    con: duckdb.DuckDBPyConnection, by_task: dict[str, Any], task_names: list[str], split_names: list[str]
) -> dict[str, Any]:
    by_split = dict(con.execute("SELECT split, count(*) FROM samples GROUP BY split").fetchall())
    return {
        "total": sum(int(n) for n in by_split.values()),
        "by_split": {split: int(by_split.get(split, 0)) for split in split_names},
        "by_task": {
            task: {split: by_task.get(task, {}).get(split, {}).get("samples", 0) for split in split_names}
            for task in task_names
        },
    }


def _samples_by_split_month(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, int]]:
    """split -> cut month -> samples (every task), the months that have samples."""
    released: dict[str, dict[str, int]] = {}
    for month, by_split in counts_by(con, "month").items():
        for split, counts in by_split.items():
            if counts["samples"]:
                released.setdefault(split, {})[month] = counts["samples"]
    return released


def _complex_event_counts(con: duckdb.DuckDBPyConnection, split_names: list[str]) -> dict[str, Any]:
    """A complex event cut on days in two splits counts once per split and once in the total."""
    by_split = dict(con.execute("SELECT split, count(DISTINCT ce_id) FROM samples GROUP BY split").fetchall())
    total = con.execute("SELECT count(DISTINCT ce_id) FROM samples").fetchone()
    return {
        "total": int(total[0]) if total else 0,
        "by_split": {split: int(by_split.get(split, 0)) for split in split_names},
    }


def _grid_series(name: str, title: str, grid: dict[str, Any], order: list[str], x: str, y: str) -> Series:
    rows = tuple(
        {x: value, "split": split, y: counts[y]} for value in order for split, counts in grid[value].items()
    )
    kind: FigureKind = "barh" if x == "topic" else "bar"  # topic names are long
    return Series(name, title, x, y, rows, kind, x, y.replace("_", " "), group="split")


def _histogram_series(
    con: duckdb.DuckDBPyConnection, name: str, title: str, table: str, column: str
) -> Series:
    edges, x, y = (
        (HORIZON_EDGES, "days", "target_events") if table == "horizons" else (WORD_EDGES, "words", table)
    )
    rows = tuple({x: label, "task": task, y: n} for label, task, n in histogram(con, table, column, edges))
    return Series(name, title, x, y, rows, "bar", x, y.replace("_", " "), group="task")


def _month_table(con: duckdb.DuckDBPyConnection, totals: dict[str, dict[str, int]]) -> Table:
    by_month = counts_by(con, "month")
    split_names = splits(con)
    return Table(
        "Samples by cut month",
        ("Month", *(f"{split} samples" for split in split_names), "Samples", "Complex events"),
        tuple(
            (
                month,
                *(by_month[month][split]["samples"] for split in split_names),
                totals[month]["samples"],
                totals[month]["complex_events"],
            )
            for month in sorted(totals)
        ),
        "The month of a sample's cut day, its forecast start.",
    )
