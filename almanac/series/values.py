"""What was known of a series on a given day, from its rows of every vintage.

A series' rows may hold several values for one period (first print, revisions), each with the day it
became known. On day D a forecaster knew, for every period, its latest value known on or before D, and
nothing else: :func:`known_on` is that view, and every prompt is built from it. A question resolves from
the first publication on or after its resolution date (:func:`first_known_from`), whatever was revised
later.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

Row = Mapping[str, Any]


@dataclass(frozen=True)
class Known:
    period_start: date
    value: float
    known_date: date


def known_on(rows: Sequence[Row], day: date) -> list[Known]:
    """Each period's latest value known on or before ``day`` (periods in order; missing values left out)."""
    latest: dict[date, Row] = {}
    for row in rows:
        if row["known_date"] <= day:
            current = latest.get(row["period_start"])
            if current is None or row["known_date"] >= current["known_date"]:
                latest[row["period_start"]] = row
    return [
        Known(period, float(row["value"]), row["known_date"])
        for period, row in sorted(latest.items())
        if row["value"] is not None
    ]


def first_known_from(rows: Sequence[Row], day: date) -> Known | None:
    """The first publication on or after ``day``: the earliest known date, and on it the latest period."""
    later = [row for row in rows if row["known_date"] >= day and row["value"] is not None]
    if not later:
        return None
    first_day = min(row["known_date"] for row in later)
    row = max((row for row in later if row["known_date"] == first_day), key=lambda r: r["period_start"])
    return Known(row["period_start"], float(row["value"]), row["known_date"])


def recent_sigma(rows: Sequence[Row], day: date, window: int) -> float | None:
    """Population standard deviation of the last ``window`` periods' values as known on ``day`` (FutureX:
    the outcome's variation over the past 7 days); None with fewer than two values or no variation."""
    values = [known.value for known in known_on(rows, day)[-window:]]
    if len(values) < 2:
        return None
    sigma = statistics.pstdev(values)
    return sigma if sigma > 0 else None


def by_series(rows: Sequence[Row]) -> dict[str, list[Row]]:
    grouped: dict[str, list[Row]] = {}
    for row in rows:
        grouped.setdefault(str(row["series_id"]), []).append(row)
    return grouped
