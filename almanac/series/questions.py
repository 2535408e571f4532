"""Series questions (ForecastBench-like): templates at fixed horizons, resolved from the series itself.

For each series, forecast date F (``forecast_days`` of every month in the splits) and horizon h, with the
resolution date R = F + h:

- binary: "Will the first figure of <series> published on or after R be higher than <the latest figure
  published by F>?" (a tie is "no");
- numeric: "What will the first figure of <series> published on or after R be?" with its unit, and the
  FutureX Level-4 sigma: the standard deviation of the series' last ``sigma_window`` values known on R,
  or ``sigma_relative_fallback`` x |answer| when there is no variation to measure (flagged per row).

The prompt shows the last ``prompt_values`` figures known on F, each as it stood on F (first prints, not
later revisions). A question belongs to the split of R's month. A series whose values may be later
revisions (``revised_unknown``, e.g. DBnomics) is left out unless ``allow_unvintaged``: its "past" values
could carry information published after F.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from almanac.core.ids import content_id
from almanac.core.months import parse_month
from almanac.series.values import Known, by_series, first_known_from, known_on, recent_sigma

Row = Mapping[str, Any]
KINDS = ("binary", "numeric")


@dataclass(frozen=True)
class SeriesQuestionConfig:
    """params ``series.questions``."""

    horizons_days: tuple[int, ...] = (7, 30, 90, 180)
    forecast_days: tuple[int, ...] = (1, 15)  # days of each month on which questions are asked
    prompt_values: int = 12  # figures known on the forecast date shown in the prompt
    min_history: int = 2  # figures needed before a question is asked
    sigma_window: int = 7  # FutureX: the outcome's variation over the past 7 days (here: values)
    sigma_relative_fallback: float = 0.1
    allow_unvintaged: bool = False

    def __post_init__(self) -> None:
        if not self.horizons_days or min(self.horizons_days) < 1:
            raise ValueError("series.questions.horizons_days: one or more horizons of at least 1 day")
        if not self.forecast_days or not all(1 <= day <= 28 for day in self.forecast_days):
            raise ValueError("series.questions.forecast_days: days 1..28 (every month has them)")


@dataclass(frozen=True)
class Skipped:
    series_id: str
    reason: str  # unvintaged_series | short_history | not_resolved_yet
    detail: str


def forecast_dates(months: Sequence[str], days: Sequence[int]) -> list[date]:
    return sorted({date(*parse_month(month), day) for month in months for day in days})


def build_questions(
    rows: Sequence[Row], splits: Mapping[str, Sequence[str]], config: SeriesQuestionConfig
) -> Iterator[dict[str, Any] | Skipped]:
    """Questions of every series, in series then date order; what was not asked is a :class:`Skipped`."""
    split_of = {month: split for split, months in splits.items() for month in months}
    all_months = sorted(split_of)
    # F may lie before the first split month: a question resolving in it can be asked months earlier.
    earliest = min((date(*parse_month(m), 1) for m in all_months), default=None)
    for series_id, series_rows in sorted(by_series(rows).items()):
        if not config.allow_unvintaged and any(row["revised_unknown"] for row in series_rows):
            yield Skipped(series_id, "unvintaged_series", "values may be later revisions (no release dates)")
            continue
        if earliest is None:
            continue
        horizon = max(config.horizons_days)
        months = _months_between(earliest - timedelta(days=horizon), date(*parse_month(all_months[-1]), 28))
        for forecast in forecast_dates(months, config.forecast_days):
            known = known_on(series_rows, forecast)
            if len(known) < config.min_history:
                continue
            for days in config.horizons_days:
                resolution = forecast + timedelta(days=days)
                split = split_of.get(f"{resolution.year:04d}-{resolution.month:02d}")
                if split is None:
                    continue
                outcome = first_known_from(series_rows, resolution)
                if outcome is None:
                    yield Skipped(
                        series_id, "not_resolved_yet", f"nothing published on or after {resolution}"
                    )
                    continue
                for kind in KINDS:
                    yield _question(
                        series_rows[0], kind, forecast, resolution, split, known, outcome, series_rows, config
                    )


def _question(
    meta: Row,
    kind: str,
    forecast: date,
    resolution: date,
    split: str,
    known: Sequence[Known],
    outcome: Known,
    rows: Sequence[Row],
    config: SeriesQuestionConfig,
) -> dict[str, Any]:
    baseline = known[-1]
    title, unit = str(meta["title"]), str(meta["unit"])
    if kind == "binary":
        question = (
            f"Will the first figure of {title} published on or after {resolution.isoformat()} be higher than "
            f"{baseline.value:g} ({unit}), the latest figure published by {forecast.isoformat()} "
            f"(for the period starting {baseline.period_start.isoformat()})?"
        )
        answer = "yes" if outcome.value > baseline.value else "no"
        sigma, sigma_source = None, None
    else:
        question = (
            f"What will be the first figure of {title} published on or after {resolution.isoformat()}? "
            f"Answer with one number in {unit}."
        )
        answer = f"{outcome.value:g}"
        sigma = recent_sigma(rows, resolution, config.sigma_window)
        sigma_source = "recent_values"
        if sigma is None:
            sigma, sigma_source = (
                config.sigma_relative_fallback * abs(outcome.value) or 1.0,
                "fallback_relative",
            )
    return {
        "question_id": content_id(
            "series", str(meta["series_id"]), kind, forecast.isoformat(), resolution.isoformat()
        ),
        "series_id": meta["series_id"],
        "provider": meta["provider"],
        "title": title,
        "unit": unit,
        "frequency": meta["frequency"],
        "kind": kind,
        "question": question,
        "forecast_date": forecast,
        "resolution_date": resolution,
        "horizon_days": (resolution - forecast).days,
        "prompt_values": [
            {"period_start": k.period_start, "value": k.value, "known_date": k.known_date}
            for k in known[-config.prompt_values :]
        ],
        "baseline_period": baseline.period_start,
        "baseline_value": baseline.value,
        "answer": answer,
        "resolution_period": outcome.period_start,
        "resolution_value": outcome.value,
        "resolution_known_date": outcome.known_date,
        "sigma": sigma,
        "sigma_source": sigma_source,
        # no release dates: every figure may be a later revision (only with allow_unvintaged)
        "values_may_be_revised": any(bool(row["revised_unknown"]) for row in rows),
        "split": split,
        "news_query": "",  # filled by almanac.series.context.add_context
        "news_context": [],
    }


def _months_between(first: date, last: date) -> list[str]:
    months, year, month = [], first.year, first.month
    while (year, month) <= (last.year, last.month):
        months.append(f"{year:04d}-{month:02d}")
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return months
