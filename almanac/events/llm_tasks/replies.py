"""The records the complex-event tasks answer with, and the argument text format.

Each task's parser lives with its task; the records, the date reading and the ``name: value``
argument lines they share are here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

from almanac.core.text import fold
from almanac.llm.parsing import ParseError, collapse

DATE_PRECISIONS = ("day", "month", "year", "unknown")


ARGUMENT_NAMES = ("event_type", "subject", "object", "location", "time")


@dataclass(frozen=True)
class ArticleCategory:
    category: str  # one of ARTICLE_CATEGORIES
    topic: str  # one of EVENT_TOPICS when category == "event", else ""


@dataclass(frozen=True)
class EventDate:
    date: str  # "yyyy-MM-dd" | "yyyy-MM" | "yyyy" | "unknown"
    precision: str  # one of DATE_PRECISIONS, matching the form of ``date``


@dataclass(frozen=True)
class TimelineEvent:
    text: str
    date: EventDate


@dataclass(frozen=True)
class Timeline:
    events: tuple[TimelineEvent, ...]  # empty: the text holds no timeline (the model answered "none")


@dataclass(frozen=True)
class TimelineOrder:
    order: tuple[int, ...]  # a permutation of 0..n-1: order[i] = old index of the event now at position i


@dataclass(frozen=True)
class EventArguments:
    event_type: str  # trigger phrase, e.g. "announced", "declared a state of emergency"
    subject: str
    object: str
    location: str
    time: str  # as stated ("14 March 2025"), "" if none


@dataclass(frozen=True)
class ArgumentQuestion:
    question: str  # "Who/What/When/Where will ...?"
    answer: str
    negatives: tuple[str, ...]  # three wrong answers of the same kind


@dataclass(frozen=True)
class NegativeEvent:
    text: str
    arguments: EventArguments


_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


_EDGE = ".,;:!*\"'`"


# "1. ", "2) ", "- ", "* " that models put in front of list items even inside a tag.
_LEADING_MARK = re.compile(r"^(?:\(?\d{1,3}[.)]|[-*\u2022])(?:\s+|$)")


NOT_STATED = frozenset({"", "none", "n a", "na", "null", "nil", "unknown", "not stated", "not mentioned"})


def normalise_event_date(raw: str) -> EventDate:
    """``yyyy-MM-dd`` / ``yyyy-MM`` / ``yyyy`` (a real calendar date) or ``unknown``, with its precision."""
    value = raw.strip().strip(_EDGE).strip()
    if value.lower() == "unknown":
        return EventDate("unknown", "unknown")
    match = _DATE.match(value)
    if not match:
        raise ParseError(
            f"a date must be written yyyy-MM-dd, yyyy-MM or yyyy, or 'unknown'; got {raw.strip()[:40]!r}"
        )
    year, month, day = match.groups()
    try:
        date(int(year), int(month or 1), int(day or 1))
    except ValueError:
        raise ParseError(f"{value!r} is not a real calendar date") from None
    return EventDate(value, "day" if day else "month" if month else "year")


def strip_list_mark(text: str) -> str:
    """Whitespace collapsed and a leading list number or bullet ("1. ", "- ") removed."""
    return _LEADING_MARK.sub("", collapse(text), count=1)


def argument_value(raw: str) -> str:
    """An argument as written, or ``""`` for the ways models say "not stated" ("none", "N/A", "-")."""
    value = collapse(raw).strip("\"'`*").strip()
    return "" if fold(value) in NOT_STATED else value


def format_arguments(arguments: EventArguments) -> str:
    return "\n".join(f"{name}: {collapse(getattr(arguments, name)) or 'none'}" for name in ARGUMENT_NAMES)


def read_arguments(text: str) -> EventArguments:
    """The inverse of :func:`format_arguments`: five ``name: value`` lines."""
    values: dict[str, str] = {}
    for line in text.splitlines():
        name, colon, value = line.partition(":")
        name = name.strip().lower()
        if not line.strip():
            continue
        if not colon or name not in ARGUMENT_NAMES:
            raise ParseError(
                f"argument lines must read 'name: value' with a name in {ARGUMENT_NAMES}, got {line[:60]!r}"
            )
        if name in values:
            raise ParseError(f"argument {name!r} is given twice")
        values[name] = argument_value(value)
    missing = [name for name in ARGUMENT_NAMES if name not in values]
    if missing:
        raise ParseError(f"arguments lack the line(s) {', '.join(missing)}")
    return EventArguments(**values)


def _check_distinct(answers: list[str], gold: str, gold_name: str) -> None:
    """``answers`` differ from one another and from ``gold`` once case and punctuation are folded."""
    seen: dict[str, int] = {}
    for number, answer in enumerate(answers, start=1):
        key = fold(answer)
        if key in NOT_STATED:
            raise ParseError(f"negative {number} is empty or 'none'")
        if key == fold(gold):
            raise ParseError(f"negative {number} repeats the {gold_name} {gold[:60]!r}; it must be false")
        if key in seen:
            raise ParseError(f"negatives {seen[key]} and {number} are the same; give three different ones")
        seen[key] = number
