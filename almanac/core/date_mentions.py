"""Dates a text names, each as an interval with its precision.

One reading for the OpenForecast release (almanac.events.split drops a sample whose background event text
names a date that does not end before the cut) and ``almanac check`` (which reports one).

Forms read (month names in full or as the usual three-letter abbreviations, capitalised):
"14 May 2025", "May 14, 2025", "14th of May 2025" and ISO "2025-05-14" (day); "14 May" and "May 14"
(day, the year taken from the context date — the event's own date); "May 2025" (month).
Not read, on purpose: a month alone ("in May": "May" is also a verb and a name), a year alone ("the 2026
World Cup" names no date of the story), weekdays and relative dates ("next Tuesday").
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date

_MONTHS = {name.casefold(): number for number, name in enumerate(calendar.month_name) if name}
_MONTHS.update({name.casefold(): number for number, name in enumerate(calendar.month_abbr) if name})
_MONTHS["sept"] = 9
_MONTH = (
    r"(?P<{0}>" + "|".join(sorted((name.capitalize() for name in _MONTHS), key=len, reverse=True)) + r")\.?"
)
_DAY = r"(?P<{0}>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<{0}>(?:19|20)\d\d)"
_PATTERNS = (
    re.compile(rf"\b{_YEAR.format('y')}-(?P<m>[01]\d)-(?P<d>[0-3]\d)\b"),
    re.compile(rf"\b{_DAY.format('d')}\s+(?:of\s+)?{_MONTH.format('mn')}(?:,?\s+{_YEAR.format('y')})?\b"),
    re.compile(rf"\b{_MONTH.format('mn')}\s+{_DAY.format('d')}(?!\d)(?:,?\s+{_YEAR.format('y')})?\b"),
    re.compile(rf"\b{_MONTH.format('mn')},?\s+{_YEAR.format('y')}\b"),
)


@dataclass(frozen=True)
class Mention:
    text: str
    first: date
    last: date
    precision: str  # day | month


def dates_named(text: str, context: date) -> list[Mention]:
    """Every date ``text`` names, in order of position; overlapping readings keep the first, longest."""
    found: list[tuple[int, int, Mention]] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(start < match.end() and match.start() < end for start, end, _ in found):
                continue
            mention = _read(match, context)
            if mention is not None:
                found.append((match.start(), match.end(), mention))
    return [mention for _, _, mention in sorted(found, key=lambda item: item[0])]


def _read(match: re.Match[str], context: date) -> Mention | None:
    groups = match.groupdict()
    month = int(groups["m"]) if groups.get("m") else _MONTHS.get((groups.get("mn") or "").casefold())
    year = int(groups["y"]) if groups.get("y") else context.year
    if month is None or not 1 <= month <= 12:
        return None
    try:
        if groups.get("d"):
            day = date(year, month, int(groups["d"]))
            return Mention(match.group(0), day, day, "day")
        last = calendar.monthrange(year, month)[1]
        return Mention(match.group(0), date(year, month, 1), date(year, month, last), "month")
    except ValueError:  # "31 April": no such day, so no date named
        return None
