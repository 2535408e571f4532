"""Question dates: strict parsing, clamping to the article, and the optional FutureSim date repair.

A generator writes dates as free text. Only unambiguous calendar dates are accepted; anything else
(a bare month, "unknown", 05/06/2025, which is May or June depending on the writer) is rejected by
the stage rather than guessed, since a wrong date silently moves a question to another split.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime

from almanac.core.months import MONTH_NAMES

_MONTHS = {name: number for number, name in enumerate(MONTH_NAMES, start=1)}
# Three-letter abbreviations plus "sept", all looked up after dropping a trailing dot.
_MONTH_ABBREVIATIONS = {name[:3]: number for name, number in _MONTHS.items()} | {"sept": 9}

_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")
_LEADING_PREPOSITION = re.compile(r"^(?:on|by)\s+")
_WEEKDAY = r"(?:(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?\.?,?\s+)?"
_ORDINAL = r"(?:st|nd|rd|th)?"
_MONTH_DAY_YEAR = re.compile(rf"{_WEEKDAY}([a-z]+)\.?\s+(\d{{1,2}}){_ORDINAL},?\s+(\d{{4}})")
_DAY_MONTH_YEAR = re.compile(rf"{_WEEKDAY}(\d{{1,2}}){_ORDINAL}\s+(?:of\s+)?([a-z]+)\.?,?\s+(\d{{4}})")


def _month_number(word: str) -> int | None:
    word = word.rstrip(".")
    return _MONTHS.get(word) or _MONTH_ABBREVIATIONS.get(word)


def _make_date(year: int, month: int | None, day: int) -> date | None:
    if month is None:
        return None
    try:
        return date(year, month, day)
    except ValueError:  # 2025-02-30 and the like
        return None


def parse_question_date(text: str) -> date | None:
    """The calendar date written in ``text``, or None when it is not one unambiguous day.

    Accepted: ISO dates and timestamps (the date as written, no time-zone conversion),
    "May 12, 2025", "Monday, May 12th 2025", "12 May 2025", "12th of May, 2025", "Sept. 3, 2025",
    each optionally after "on" or "by".
    Rejected: bare months ("May 2025" is a month, not a day), purely numeric forms other than ISO,
    impossible days, and any surrounding prose.
    """
    cleaned = " ".join(text.strip().rstrip(".").split()).lower()
    cleaned = _LEADING_PREPOSITION.sub("", cleaned)
    if not cleaned:
        return None
    iso = _ISO.fullmatch(cleaned.upper())
    if iso:
        return _make_date(int(iso.group(1)), int(iso.group(2)), int(iso.group(3)))
    month_first = _MONTH_DAY_YEAR.fullmatch(cleaned)
    if month_first:
        month, day, year = month_first.groups()
        return _make_date(int(year), _month_number(month), int(day))
    day_first = _DAY_MONTH_YEAR.fullmatch(cleaned)
    if day_first:
        day, month, year = day_first.groups()
        return _make_date(int(year), _month_number(month), int(day))
    return None


@dataclass(frozen=True)
class DatesOutcome:
    """Parsed dates of one question; ``reason`` is None when the question is kept."""

    start: date | None
    resolution: date | None
    clamped: bool
    reason: str | None
    detail: str


def _as_date(value: date) -> date:
    # A datetime is a date subclass but does not compare with plain dates; keep only the day.
    return value.date() if isinstance(value, datetime) else value


def resolve_dates(start_text: str, resolution_text: str, article_publish_date: date) -> DatesOutcome:
    """Parse both dates and check them against the article that resolves the question.

    Reject reasons: ``unknown_start_date``, ``unknown_resolution_date``, ``start_not_before_article``
    (the question has to be open before the article that answers it appeared),
    ``start_not_before_resolution`` (checked after clamping). A resolution date after the article's
    publish date is clamped to it: the answer was public from that day on.
    """
    published = _as_date(article_publish_date)
    start = parse_question_date(start_text)
    resolution = parse_question_date(resolution_text)
    if start is None:
        return DatesOutcome(None, resolution, False, "unknown_start_date", f"start date {start_text!r}")
    if resolution is None:
        return DatesOutcome(
            start, None, False, "unknown_resolution_date", f"resolution date {resolution_text!r}"
        )
    if start >= published:
        return DatesOutcome(
            start,
            resolution,
            False,
            "start_not_before_article",
            f"start {start.isoformat()} is not before the article date {published.isoformat()}",
        )
    clamped = resolution > published
    if clamped:
        resolution = published
    if start >= resolution:
        return DatesOutcome(
            start,
            resolution,
            clamped,
            "start_not_before_resolution",
            f"start {start.isoformat()} is not before resolution {resolution.isoformat()}",
        )
    detail = f"clamped to article date {published.isoformat()}" if clamped else ""
    return DatesOutcome(start, resolution, clamped, None, detail)


def apply_date_repair(outcome: DatesOutcome, repaired_text: str, month_start: date) -> DatesOutcome:
    """Tighten the resolution date to the earliest day the answer could be inferred (FutureSim).

    ``repaired_text`` is a role's answer; when it is not a date (e.g. "unknown") the outcome is
    returned unchanged, as is an already rejected outcome. A repaired date only moves the
    resolution earlier, never later. Reject reasons: ``answer_known_at_start`` (repaired on or
    before the start date) and ``repaired_before_month`` (the answer was public before the month
    the question belongs to, so it would leak into that month's training cut-off).
    """
    if outcome.reason is not None or outcome.start is None or outcome.resolution is None:
        return outcome
    repaired = parse_question_date(repaired_text)
    if repaired is None:
        return outcome
    first_day = _as_date(month_start)
    if repaired <= outcome.start:
        return replace(
            outcome,
            reason="answer_known_at_start",
            detail=f"repaired date {repaired.isoformat()} is not after start {outcome.start.isoformat()}",
        )
    if repaired < first_day:
        return replace(
            outcome,
            reason="repaired_before_month",
            detail=f"repaired date {repaired.isoformat()} is before {first_day.isoformat()}",
        )
    if repaired < outcome.resolution:
        note = f"repaired from {outcome.resolution.isoformat()}"
        detail = f"{outcome.detail}; {note}" if outcome.detail else note
        return replace(outcome, resolution=repaired, detail=detail)
    return outcome
