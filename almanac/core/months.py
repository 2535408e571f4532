"""Calendar months, the unit the DAG is parametrized by (``YYYY-MM`` strings)."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime

# "january" ... "december", locale-independent (calendar.month_name follows the C locale here).
MONTH_NAMES: tuple[str, ...] = tuple(name.lower() for name in calendar.month_name[1:])
# Every English spelling a dated text uses for a month, full and abbreviated, to its number.
MONTH_NUMBERS: dict[str, int] = (
    {name: number for number, name in enumerate(MONTH_NAMES, start=1)}
    | {name[:3]: number for number, name in enumerate(MONTH_NAMES, start=1)}
    | {"sept": 9}
)

_MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


def parse_month(month: str) -> tuple[int, int]:
    match = _MONTH.match(str(month))
    if not match:
        raise ValueError(f"month must look like 2025-05, got {month!r}")
    return int(match.group(1)), int(match.group(2))


def month_of(moment: date | datetime) -> str:
    return f"{moment.year:04d}-{moment.month:02d}"


def month_start(month: str) -> datetime:
    year, mon = parse_month(month)
    return datetime(year, mon, 1, tzinfo=UTC)


def month_end(month: str) -> datetime:
    """First instant of the following month (exclusive bound)."""
    year, mon = parse_month(month)
    return datetime(year + mon // 12, mon % 12 + 1, 1, tzinfo=UTC)


def validate_months(months: list[str]) -> list[str]:
    """Sorted, de-duplicated months; raises on any malformed entry."""
    for month in months:
        parse_month(month)
    return sorted(set(months))
