"""Markdown tables of the OpenForecast-style report, built from its metrics (and the shortcut audit)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pyarrow as pa

from almanac.check.choices import openforecast_tasks
from almanac.check.shortcuts import BaselineScore, audit
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


def shortcut_table(tables: Iterable[pa.Table], params: Mapping[str, Any]) -> Table:
    """The shortcut audit of ``almanac check`` over the released multiple-choice samples in scope."""
    section = (params.get("event_tasks") or {}).get("shortcut_audit") or {}
    margin, minimum = float(section.get("margin", 0.10)), int(section.get("min_samples", 20))
    rows = [row for table in tables for row in table.to_pylist()]
    result = audit(openforecast_tasks(rows), margin, minimum)
    return Table(
        "No-knowledge baselines beside chance",
        ("Task", "Baseline", "Accuracy", "Chance", "Tasks answered", "Verdict"),
        tuple(
            (
                score.group.split("/")[-1].upper(),
                score.baseline,
                "-" if score.accuracy is None else f"{score.accuracy:.1%}",
                f"{score.chance:.1%}",
                score.n,
                _verdict(score.verdict(margin, minimum), score, margin, minimum),
            )
            for score in result.scores
        ),
        f"Rules that see only the options, title and background (README 'How options are built'); "
        f"`almanac check` fails a build on any above chance + {margin:.0%} on >= {minimum} tasks.",
    )


def _verdict(failure: str | None, score: BaselineScore, margin: float, minimum: int) -> str:
    if failure:
        return "FAIL"
    if not score.n:
        return "abstains"
    above = score.accuracy is not None and score.accuracy > score.chance + margin
    if score.n < minimum:
        return "above chance + margin, too few tasks to fail" if above else "ok (too few tasks to fail)"
    return "ok"
