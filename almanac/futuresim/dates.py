"""The dates FutureSim gates on: the leak-free day of an article and the per-question retrieval cut-off.

An article's date is an interval (README "Article dates"): ``day`` precision is that day, ``upper_bound``
(the crawl date stands in) is any day up to it. Gating must never show an article that might be later than
the cap, so each article is indexed at the *end* of its interval: shown under a cap C only when the whole
interval is <= C. For both precisions the end is the ``publish_date`` day.
"""

from __future__ import annotations

import calendar
from datetime import date, datetime

KNOWN_PRECISIONS = frozenset({"day", "upper_bound"})


def leak_free_day(publish_date: datetime | date, precision: str) -> date:
    """The last day the article may have been published on (its interval's end)."""
    if precision not in KNOWN_PRECISIONS:
        raise ValueError(
            f"date precision {precision!r} has no leak-free day; known: {sorted(KNOWN_PRECISIONS)}"
        )
    return publish_date.date() if isinstance(publish_date, datetime) else publish_date


def day_number(day: date) -> int:
    """``date(2025, 5, 31)`` -> 20250531: the integer the index stores and range-filters on."""
    return day.year * 10000 + day.month * 100 + day.day


def from_day_number(number: int) -> date:
    return date(number // 10000, number // 100 % 100, number % 100)


def months_before(day: date, months: int) -> date:
    """The same day ``months`` calendar months earlier, or that month's last day when it is shorter
    (2025-03-31 minus one month is 2025-02-28): never later than a plain "same day" reading."""
    index = day.year * 12 + day.month - 1 - months
    year, month = divmod(index, 12)
    month += 1
    return date(year, month, min(day.day, calendar.monthrange(year, month)[1]))


def retrieval_cutoff(resolution: date, precision: str, months: int) -> date:
    """The last day whose articles a question's retrieval may read: ``months`` before the resolution.

    A resolution date is an interval too: a day, or (``month`` precision, "by July 2025") every day of
    its month, and the answer may be public from the interval's *first* day. The cut-off counts back from
    that first day, so it is ``months`` before the earliest day the answer could be known: "2025-07" with
    one month gives 2025-06-01, the day 2025-07-15 gives 2025-06-15. Rows without a precision are days.
    """
    if precision == "day":
        first = resolution
    elif precision == "month":
        first = resolution.replace(day=1)
    elif precision == "year":
        first = resolution.replace(month=1, day=1)
    else:
        raise ValueError(f"resolution date precision {precision!r}: one of day, month, year")
    return months_before(first, months)
