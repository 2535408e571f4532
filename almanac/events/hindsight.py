"""Hindsight wording in background events, and the same-side rule for dated MCAC options.

A timeline written after the fact says what came next ("..., later quoted in parliament", "who would go
on to win"). Shown as background, such an event tells the forecaster the outcome. The leak-free reading:
a background event whose text uses hindsight wording is left out of the sample's background (counted);
the event stays in its timeline and may still be a target of a later cut.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date

from almanac.core.text import fold
from almanac.events.llm_tasks.date_mentions import mention_dates

_WORD = re.compile(r"\w+")


def hindsight_phrase(text: str, words: Sequence[str]) -> str | None:
    """The first hindsight phrase of ``words`` that ``text`` uses, or None."""
    folded = " ".join(_WORD.findall(fold(text)))
    for phrase in words:
        wanted = " ".join(_WORD.findall(fold(phrase)))
        if wanted and re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", folded):
            return phrase
    return None


_ISO = re.compile(r"^\s*(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?\s*$")


def option_span(text: str, year: int) -> tuple[date, date] | None:
    """First and last day a date-valued option can mean ("2025-04-29", "3 March 2025", "June 2025",
    "June" in ``year``); None when the option is no date."""
    iso = _ISO.match(text)
    if iso:
        parts = [int(part) for part in iso.groups() if part]
    else:
        found = mention_dates(text, None, year)
        if not found or any(value.precision == "unknown" for value in found):
            return None
        first, last = found[0].date.split("-"), found[-1].date.split("-")
        if first != last:
            start, end = _span([int(part) for part in first]), _span([int(part) for part in last])
            return (start[0], end[1]) if start and end else None
        parts = [int(part) for part in first]
    return _span(parts)


def _span(parts: Sequence[int]) -> tuple[date, date] | None:
    try:
        if len(parts) == 3:
            return date(*parts), date(*parts)
        if len(parts) == 2:
            following = date(parts[0] + (parts[1] == 12), parts[1] % 12 + 1, 1)
            return date(parts[0], parts[1], 1), date.fromordinal(following.toordinal() - 1)
        return date(parts[0], 1, 1), date(parts[0], 12, 31)
    except ValueError:
        return None
