"""Invariants of released series questions, read against the series table they came from.

The checker's own reading of the rules (docs/series.md), not the builder's code: on a day D a forecaster
knew, for every period, the value with the latest release date on or before D; a question resolves from
the first figure released on or after its resolution date. So every figure in a prompt must be released
on or before the forecast date *and* be the figure that stood on that date: a later revision of an old
period (a value known only after the forecast date) is a leak, even though its period is in the past.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from almanac.check.common import Checked, unique_ids
from almanac.check.dates import as_day
from almanac.check.report import StyleReport
from almanac.check.series_context import NewsContextRules, context_capped, context_not_after_forecast

Row = Mapping[str, Any]
Table = dict[str, list[Row]]  # series id -> its rows of every release


def check_series(
    questions: Sequence[Row],
    observations: Sequence[Row],
    splits: Mapping[str, Sequence[str]],
    allow_unvintaged: bool = False,
    scope: str = "all",
    news: NewsContextRules | None = None,
) -> StyleReport:
    table: Table = {}
    for row in observations:
        table.setdefault(str(row["series_id"]), []).append(row)
    report = StyleReport("series", scope, rows=len(questions))
    report.check("ids_unique", "question_id unique", unique_ids(questions, "question_id"))
    report.check(
        "prompt_values_as_of_forecast_date",
        "every prompt figure was released by the forecast date and is the figure that stood on it",
        _prompt_values(questions, table),
    )
    report.check(
        "resolution_reproducible",
        "the answer is the first figure released on or after the resolution date",
        _resolutions(questions, table),
    )
    report.check(
        "split_by_resolution_month",
        "forecast date < resolution date, in the split of the resolution month",
        _splits(questions, splits),
    )
    report.check(
        "unvintaged_only_when_allowed",
        "a question on a series without release dates (its figures may be later revisions) is released "
        "only with series.questions.allow_unvintaged, and says so in values_may_be_revised",
        _unvintaged(questions, table, allow_unvintaged),
    )
    if news is not None:
        report.check(
            "news_context_not_after_forecast_date",
            "every news chunk's publication interval ends on or before the question's forecast date "
            "(the corpus's date where the corpus is built)",
            context_not_after_forecast(questions, news),
        )
        report.check(
            "news_context_capped",
            "at most futuresim.retrieval.k chunks, ranked 1..n, each within futuresim.corpus.chunk_tokens",
            context_capped(questions, news),
        )
    return report


def _unvintaged(questions: Sequence[Row], table: Table, allowed: bool) -> Checked:
    for question in questions:
        rows = table.get(str(question["series_id"]), [])
        unvintaged = any(bool(row["revised_unknown"]) for row in rows)
        problem = None
        if unvintaged and not allowed:
            problem = "its series has no release dates and series.questions.allow_unvintaged is false"
        elif unvintaged and not question.get("values_may_be_revised"):
            problem = "its series has no release dates but values_may_be_revised is not set"
        yield str(question["question_id"]), problem


def _as_of(rows: Sequence[Row], day: date) -> dict[date, tuple[float | None, date]]:
    standing: dict[date, tuple[float | None, date]] = {}
    for row in sorted(rows, key=lambda r: as_day(r["known_date"]) or date.max):
        released = as_day(row["known_date"])
        period = as_day(row["period_start"])
        if released is not None and period is not None and released <= day:
            standing[period] = (row["value"], released)
    return standing


def _prompt_values(questions: Sequence[Row], table: Table) -> Checked:
    for question in questions:
        forecast = as_day(question["forecast_date"])
        standing = _as_of(table.get(str(question["series_id"]), []), forecast or date.min)
        problem = None
        for item in question["prompt_values"]:
            period, released = as_day(item["period_start"]), as_day(item["known_date"])
            if forecast is None or released is None or released > forecast:
                problem = f"figure for {period} released {released}, after the forecast date {forecast}"
            elif period not in standing or standing[period][0] != item["value"]:
                stood = standing.get(period, (None, None))[0] if period else None
                problem = f"figure for {period} is {item['value']}, but {stood} stood on {forecast}"
            if problem:
                break
        yield str(question["question_id"]), problem


def _resolutions(questions: Sequence[Row], table: Table) -> Checked:
    for question in questions:
        resolution = as_day(question["resolution_date"]) or date.max
        later = [
            row
            for row in table.get(str(question["series_id"]), [])
            if (as_day(row["known_date"]) or date.min) >= resolution and row["value"] is not None
        ]
        if not later:
            yield str(question["question_id"]), "no figure released on or after the resolution date"
            continue
        first = min(as_day(row["known_date"]) or date.max for row in later)
        chosen = max(
            (r for r in later if as_day(r["known_date"]) == first),
            key=lambda r: as_day(r["period_start"]) or date.min,
        )
        value = float(chosen["value"])
        if question["kind"] == "binary":
            expected = "yes" if value > float(question["baseline_value"]) else "no"
        else:
            expected = f"{value:g}"
        wrong = question["answer"] != expected or float(question["resolution_value"]) != value
        yield (
            str(question["question_id"]),
            f"answer {question['answer']!r}, the series says {expected!r}" if wrong else None,
        )


def _splits(questions: Sequence[Row], splits: Mapping[str, Sequence[str]]) -> Checked:
    split_of = {month: split for split, months in splits.items() for month in months}
    for question in questions:
        forecast, resolution = as_day(question["forecast_date"]), as_day(question["resolution_date"])
        if forecast is None or resolution is None or forecast >= resolution:
            yield str(question["question_id"]), f"forecast date {forecast} not before resolution {resolution}"
            continue
        expected = split_of.get(f"{resolution.year:04d}-{resolution.month:02d}")
        yield (
            str(question["question_id"]),
            None if question["split"] == expected else f"in {question['split']}, its month is {expected}",
        )
