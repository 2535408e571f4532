"""Question dates: strict parsing, clamping to the article, and the optional FutureSim date repair.

A generator writes dates as free text. Unambiguous calendar days are read as days; a month or a year
written alone ("by July 2025", "2025-07", "in 2025") is read as an interval with that precision and
resolved by a rule (see :func:`resolve_dates`). Anything else ("unknown", 05/06/2025, which is May
or June depending on the writer, "before July 2025") is rejected rather than guessed, since a wrong
date silently moves a question to another split or lets it show text from after its deadline.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import date, datetime, timedelta

from almanac.core.months import MONTH_NAMES

_MONTHS = {name: number for number, name in enumerate(MONTH_NAMES, start=1)}
# Three-letter abbreviations plus "sept", all looked up after dropping a trailing dot.
_MONTH_ABBREVIATIONS = {name[:3]: number for name, number in _MONTHS.items()} | {"sept": 9}

_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?")
_LEADING_PREPOSITION = re.compile(r"^(?:on|by)\s+")
# A month or year alone may follow "by", "in", "during" or "end of"; "before"/"after" shift the
# interval and are not accepted, so they stay unparseable rather than being read as the month itself.
_PARTIAL_PREFIX = re.compile(r"^(?:(?:by|in|during)\s+)?(?:(?:the\s+)?end\s+of\s+)?")
_ISO_MONTH = re.compile(r"(\d{4})-(\d{2})")
_MONTH_YEAR = re.compile(r"([a-z]+)\.?,?\s+(\d{4})")
_YEAR = re.compile(r"(\d{4})")
PRECISIONS = ("day", "month", "year")
PARTIAL_DEADLINE_RULES = ("end", "reject")
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
class DateInterval:
    """A written date as the days it may mean: one day, a whole month or a whole year."""

    first: date
    last: date
    precision: str  # one of PRECISIONS


def parse_date_interval(text: str) -> DateInterval | None:
    """The day, month or year written in ``text``, or None when it is none of them unambiguously.

    Days are whatever :func:`parse_question_date` accepts. Months: "July 2025", "Jul. 2025",
    "by July 2025", "in July, 2025", "end of July 2025", "2025-07". Years: "2025", "by 2025",
    "in 2025", "end of 2025". Not accepted: "before July 2025", "mid-2025", "Q3 2025", "unknown".
    """
    day = parse_question_date(text)
    if day is not None:
        return DateInterval(day, day, "day")
    cleaned = " ".join(text.strip().rstrip(".").split()).lower()
    cleaned = _PARTIAL_PREFIX.sub("", cleaned, count=1)
    year: int | None = None
    month: int | None = None
    iso_month = _ISO_MONTH.fullmatch(cleaned)
    month_year = _MONTH_YEAR.fullmatch(cleaned)
    if iso_month:
        year, month = int(iso_month.group(1)), int(iso_month.group(2))
    elif month_year:
        month, year = _month_number(month_year.group(1)), int(month_year.group(2))
        if month is None:
            return None
    elif _YEAR.fullmatch(cleaned):
        year = int(cleaned)
        return DateInterval(date(year, 1, 1), date(year, 12, 31), "year") if year >= 1 else None
    else:
        return None
    if year < 1 or not 1 <= month <= 12:
        return None
    last_day = calendar.monthrange(year, month)[1]
    return DateInterval(date(year, month, 1), date(year, month, last_day), "month")


@dataclass(frozen=True)
class DatesOutcome:
    """Parsed dates of one question; ``reason`` is None when the question is kept."""

    start: date | None
    resolution: date | None
    clamped: bool  # the resolution date was moved back to the article date
    reason: str | None
    detail: str
    start_precision: str | None = None  # precision of the date as written (day / month / year)
    resolution_precision: str | None = None
    start_clamped: bool = False  # the start date was moved back to the day before the article


def _as_date(value: date) -> date:
    # A datetime is a date subclass but does not compare with plain dates; keep only the day.
    return value.date() if isinstance(value, datetime) else value


def resolve_dates(
    start_text: str,
    resolution_text: str,
    article_publish_date: date,
    partial_deadline: str = "end",
) -> DatesOutcome:
    """Parse both dates and fit them to the article that resolves the question (leak-free relation).

    The kept question satisfies ``start < resolution``, ``start <= article date <= resolution``.

    * A month- or year-only deadline resolves on its last day ("by July 2025" -> 2025-07-31) when
      ``partial_deadline`` is ``end``; with ``reject`` it is rejected (``partial_resolution_date``).
      A month- or year-only start opens on its first day (an earlier start assumes less knowledge).
    * A resolution date after the article date is clamped to it: the answer was public from that day.
    * A resolution date before the article date is rejected (``resolution_before_article``): the
      article, the source of the label and of the background, was written after the deadline, so the
      question would carry text from after its own resolution.
    * A start date on or after the article date is clamped to the day before the article (the article
      date is then the resolution date, and a question must open strictly before it resolves).

    Other reject reasons: ``unknown_<field>_date`` / ``unparseable_<field>_date`` (see
    :func:`date_text_problem`) and ``start_not_before_resolution`` (checked after clamping).
    """
    if partial_deadline not in PARTIAL_DEADLINE_RULES:
        raise ValueError(f"partial_deadline must be one of {PARTIAL_DEADLINE_RULES}: {partial_deadline!r}")
    published = _as_date(article_publish_date)
    start_interval = parse_date_interval(start_text)
    resolution_interval = parse_date_interval(resolution_text)
    if start_interval is None:
        reason, detail = date_text_problem(start_text, "start") or ("unknown_start_date", "")
        return DatesOutcome(None, None, False, reason, detail)
    start, start_precision = start_interval.first, start_interval.precision
    if resolution_interval is None:
        reason, detail = date_text_problem(resolution_text, "resolution") or ("unknown_resolution_date", "")
        return DatesOutcome(start, None, False, reason, detail, start_precision)
    precision = resolution_interval.precision
    resolution = resolution_interval.last
    if precision != "day" and partial_deadline == "reject":
        return DatesOutcome(
            start,
            None,
            False,
            "partial_resolution_date",
            f"resolution date {resolution_text!r} names a {precision}, not a day",
            start_precision,
            precision,
        )
    notes = []
    if precision != "day":
        notes.append(f"{precision}-only deadline {resolution_text!r} read as {resolution.isoformat()}")
    if resolution < published:
        return DatesOutcome(
            start,
            resolution,
            False,
            "resolution_before_article",
            f"resolution {resolution.isoformat()} is before the article date {published.isoformat()}",
            start_precision,
            precision,
        )
    clamped = resolution > published
    if clamped:
        resolution = published
        notes.append(f"resolution clamped to article date {published.isoformat()}")
    start_clamped = start >= published
    if start_clamped:
        original = start
        start = published - timedelta(days=1)
        notes.append(f"start {original.isoformat()} clamped to {start.isoformat()} (day before the article)")
    if start >= resolution:
        return DatesOutcome(
            start,
            resolution,
            clamped,
            "start_not_before_resolution",
            f"start {start.isoformat()} is not before resolution {resolution.isoformat()}",
            start_precision,
            precision,
            start_clamped,
        )
    return DatesOutcome(
        start, resolution, clamped, None, "; ".join(notes), start_precision, precision, start_clamped
    )


def apply_date_repair(outcome: DatesOutcome, repaired_text: str, month_start: date) -> DatesOutcome:
    """Check the earliest day the answer could be inferred (FutureSim) against the question's dates.

    ``repaired_text`` is a role's answer; when it is not a date (e.g. "unknown") the outcome is
    returned unchanged, as is an already rejected outcome. Reject reasons: ``answer_known_at_start``
    (repaired on or before the start date) and ``repaired_before_month`` (the answer was public
    before the month the question belongs to, so it would leak into that month's training cut-off).
    An earlier repaired date does not move the resolution date: that would put the deadline before
    the article the question was written from (see :func:`resolve_dates`); it is noted in the detail.
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
        note = f"answer inferable from {repaired.isoformat()}"
        detail = f"{outcome.detail}; {note}" if outcome.detail else note
        return replace(outcome, detail=detail)
    return outcome


_UNKNOWN_WORDS = frozenset(("unknown", "n/a", "na", "none", "tbd", "unclear", "not known", "-"))


def date_text_problem(text: str, field: str) -> tuple[str, str] | None:
    """``(reason, detail)`` when ``text`` is no day, month or year; ``field`` is ``start`` or ``resolution``.

    "UNKNOWN" and similar placeholders (or nothing) give ``unknown_<field>_date``; any other text
    that cannot be read gives ``unparseable_<field>_date``.
    """
    if parse_date_interval(text) is not None:
        return None
    cleaned = " ".join(text.split()).strip(".").lower()
    kind = "unknown" if cleaned in _UNKNOWN_WORDS or not cleaned else "unparseable"
    return f"{kind}_{field}_date", f"{field} date {text[:60]!r}"
