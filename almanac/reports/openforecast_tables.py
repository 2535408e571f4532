"""Markdown tables of the OpenForecast-style report, built from its metrics (no computing here)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from almanac.reports.model import Table
from almanac.reports.openforecast_pipeline import CheckRow
from almanac.reports.openforecast_stats import HORIZON_EVENTS, TaskText

_PLAIN = {"samples": "samples", "complex_events": "complex events"}


def _cell(value: Any) -> Any:
    return "-" if value is None else value


def grid_table(
    title: str,
    label: str,
    grid: Mapping[str, Mapping[str, Mapping[str, int]]],
    totals: Mapping[str, Mapping[str, int]],
    measure: str,
) -> Table:
    """``measure`` per split, then samples and complex events over every split; one row per grid value in
    order (every value has every split)."""
    split_names = list(next(iter(grid.values()), {}))
    rows = tuple(
        (
            value,
            *(by_split[split][measure] for split in split_names),
            totals[value]["samples"],
            totals[value]["complex_events"],
        )
        for value, by_split in grid.items()
    )
    note = (
        f"Split columns: {_PLAIN[measure]}. Totals: over every split, a complex event counted once "
        "even when it has cuts in two splits."
    )
    return Table(title, (label, *split_names, "Samples", "Complex events"), rows, note)


def texts_table(texts: Mapping[str, TaskText]) -> Table:
    return Table(
        "Question and answer of each task",
        ("Task", "Question text", "Answer text", "Horizon from"),
        tuple(
            (
                task,
                text.question_is,
                text.answer_is,
                "every target event"
                if HORIZON_EVENTS.get(task) == "targets"
                else "the target event"
                if task in HORIZON_EVENTS
                else "- (no dated event)",
            )
            for task, text in texts.items()
        ),
        "What the question and answer length statistics measure for each task.",
    )


def distribution_table(title: str, by_task: Mapping[str, Mapping[str, Any]], unit: str) -> Table:
    extra = ["undated"] if any("undated" in stats for stats in by_task.values()) else []
    return Table(
        title,
        ("Task", unit, *(name.capitalize() for name in extra), "Mean", "Median", "P90", "Max"),
        tuple(
            (
                task,
                stats["count"],
                *(stats[name] for name in extra),
                *(_cell(stats[name]) for name in ("mean", "median", "p90", "max")),
            )
            for task, stats in by_task.items()
        ),
    )


def check_table(title: str, checks: Sequence[CheckRow]) -> Table:
    return Table(
        title,
        ("Check", "Scope", "Count", "Out of", "Rate"),
        tuple(
            (*(_cell(value) for value in row[:-1]), "-" if row[-1] is None else f"{row[-1]:.1%}")
            for row in checks
        ),
        "released: the samples in this report; pipeline: the whole dataset, from the stages' metrics.",
    )
