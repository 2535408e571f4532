"""Dates as intervals with their precision: the checker's own reading, not the pipeline's."""

from __future__ import annotations

import calendar
import re
from datetime import date, datetime
from typing import Any

PRECISIONS = ("day", "month", "year")
_FORMS = {
    "day": re.compile(r"^(\d{4})-(\d{2})-(\d{2})$"),
    "month": re.compile(r"^(\d{4})-(\d{2})$"),
    "year": re.compile(r"^(\d{4})$"),
}

Interval = tuple[date, date]


def interval(text: object, precision: object) -> Interval | None:
    """First and last day a dated event can mean; None when the date is unknown or malformed."""
    if not isinstance(text, str) or precision not in _FORMS:
        return None
    match = _FORMS[str(precision)].match(text.strip())
    if match is None:
        return None
    parts = [int(part) for part in match.groups()]
    try:
        if precision == "day":
            day = date(*parts)
            return day, day
        if precision == "month":
            year, month = parts
            return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
        return date(parts[0], 1, 1), date(parts[0], 12, 31)
    except ValueError:
        return None


def as_day(value: Any) -> date | None:
    """A date32 / timestamp / ISO string cell as a calendar day (timestamps are UTC)."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value[:10])
        except ValueError:
            return None
    return None


def month_of(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def parse_day(value: object, where: str) -> date:
    """A yyyy-mm-dd param; a malformed window is a configuration error, not a violation."""
    day = as_day(value)
    if day is None:
        raise ValueError(f"{where} must be a yyyy-mm-dd date, got {value!r}")
    return day


ARTICLE_PRECISIONS = frozenset({"day", "upper_bound"})


def article_last_day(publish_date: Any, precision: object) -> date | None:
    """The last day a corpus article may have been published on: its publish day for ``day`` precision
    and for ``upper_bound`` (the crawl date stands in, so the article is no later); None otherwise."""
    if precision not in ARTICLE_PRECISIONS:
        return None
    return as_day(publish_date)
