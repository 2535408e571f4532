"""Output records of the complex-event tasks (OpenForecast recipe) and their strict parsers.

Dates in timelines are normalised to ``yyyy-MM-dd``, ``yyyy-MM`` or ``yyyy`` with the precision
recorded, or ``unknown``. Argument fields use ``""`` for "not stated". The timeline parsers (extract,
complement, re-order) and the timeline text format live in :mod:`almanac.llm.timeline_outputs`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from almanac.core.text import contains_phrase, fold
from almanac.llm.parsing import ParseError, choice, collapse, find_tags, one_tag, optional_tag

# What a Wikipedia article is about; only "event" articles become complex events.
ARTICLE_CATEGORIES = (
    "people",
    "country",
    "region",
    "organization",
    "sports competition",
    "entertainment",
    "definition",
    "holiday",
    "event",
)
# Topic of an event article: the Current Events Portal's own category headings, so that Wikipedia and
# WCEP complex events share one category distribution.
EVENT_TOPICS = (
    "Armed conflicts and attacks",
    "Arts and culture",
    "Business and economy",
    "Disasters and accidents",
    "Health and environment",
    "International relations",
    "Law and crime",
    "Politics and elections",
    "Science and technology",
    "Sports",
)
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
_NOT_STATED = frozenset({"", "none", "n a", "na", "null", "nil", "unknown", "not stated", "not mentioned"})
_NUMBER = re.compile(r"^(?:event\s*)?#?\s*(\d+)\s*[.:)]?$", re.IGNORECASE)
_CATEGORY_ALIASES = {
    "person": "people",
    "persons": "people",
    "organisation": "organization",
    "organisations": "organization",
    "countries": "country",
    "item definition": "definition",
    "sport competition": "sports competition",
    "sporting competition": "sports competition",
}
_QUESTION_WORDS = ("who", "what", "when", "where", "which", "how")


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
    return "" if fold(value) in _NOT_STATED else value


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


def _numbers(numbers: list[int]) -> str:
    return ", ".join(str(number) for number in numbers)


def _category(raw: str) -> str:
    normal = fold(raw)
    normal = _CATEGORY_ALIASES.get(normal, normal)
    if normal not in ARTICLE_CATEGORIES and normal.endswith("s") and normal[:-1] in ARTICLE_CATEGORIES:
        normal = normal[:-1]
    return choice(normal, ARTICLE_CATEGORIES, "<category>")


def parse_article_category(text: str, variables: Mapping[str, str]) -> ArticleCategory:
    del variables
    category = _category(one_tag(text, "category"))
    if category != "event":
        return ArticleCategory(category, "")  # a topic given for a non-event is ignored, not an error
    raw_topic = optional_tag(text, "topic")
    if fold(raw_topic) in _NOT_STATED:
        raise ParseError(f"an event article needs a <topic>, one of {list(EVENT_TOPICS)}")
    topics = {fold(topic): topic for topic in EVENT_TOPICS}
    topic = topics.get(fold(raw_topic.replace("&", " and ")))
    if topic is None:
        raise ParseError(f"<topic> must be exactly one of {list(EVENT_TOPICS)}, got {raw_topic[:60]!r}")
    return ArticleCategory(category, topic)


def parse_occurrence_date(text: str, variables: Mapping[str, str]) -> EventDate:
    del variables
    try:
        return normalise_event_date(one_tag(text, "occurrence_date"))
    except ParseError as error:
        raise ParseError(f"<occurrence_date>: {error}") from None


def _event_number(raw: str, count: int, where: str) -> int:
    match = _NUMBER.match(raw.strip())
    if not match:
        raise ParseError(f"{where}: <number> must be an event number, got {raw.strip()[:20]!r}")
    number = int(match.group(1))
    if not 1 <= number <= count:
        raise ParseError(f"{where}: <number> {number} is not an event number (1 to {count})")
    return number


def parse_event_arguments(text: str, variables: Mapping[str, str]) -> tuple[EventArguments, ...]:
    count = int(variables["n_events"])
    blocks = find_tags(text, "arguments")
    if not blocks:
        raise ParseError(
            f"no <arguments>...</arguments> block found; give one per event, numbered 1 to {count}"
        )
    found: dict[int, EventArguments] = {}
    for index, block in enumerate(blocks, start=1):
        where = f"<arguments> block {index}"
        number = _event_number(one_tag(block, "number"), count, where)
        try:
            arguments = EventArguments(
                **{name: argument_value(one_tag(block, name, allow_empty=True)) for name in ARGUMENT_NAMES}
            )
        except ParseError as error:
            raise ParseError(f"{where} (event {number}): {error}") from None
        if found.get(number, arguments) != arguments:
            raise ParseError(f"event {number} has two different <arguments> blocks; give exactly one")
        found[number] = arguments
    missing = [number for number in range(1, count + 1) if number not in found]
    if missing:
        raise ParseError(
            f"no <arguments> block for event(s) {_numbers(missing)}; "
            f"give one block for each of the {count} events"
        )
    return tuple(found[number] for number in range(1, count + 1))


def _check_question(question: str) -> None:
    first = re.match(r"^[\W_]*(\w+)", question)
    if first is None or first.group(1).lower() not in _QUESTION_WORDS:
        raise ParseError(
            f"<question> must start with Who, What, When, Where, Which or How, got {question[:40]!r}"
        )
    if not contains_phrase(question, "will"):
        raise ParseError(f"<question> must ask about the future with 'will', got {question[:80]!r}")
    if not question.rstrip("\"'\u201d\u2019 ").endswith("?"):
        raise ParseError(f"<question> must end with a question mark, got {question[-40:]!r}")


def _check_distinct(answers: list[str], gold: str, gold_name: str) -> None:
    """``answers`` differ from one another and from ``gold`` once case and punctuation are folded."""
    seen: dict[str, int] = {}
    for number, answer in enumerate(answers, start=1):
        key = fold(answer)
        if key in _NOT_STATED:
            raise ParseError(f"negative {number} is empty or 'none'")
        if key == fold(gold):
            raise ParseError(f"negative {number} repeats the {gold_name} {gold[:60]!r}; it must be false")
        if key in seen:
            raise ParseError(f"negatives {seen[key]} and {number} are the same; give three different ones")
        seen[key] = number


def parse_argument_question(text: str, variables: Mapping[str, str]) -> ArgumentQuestion:
    del variables
    question = strip_list_mark(one_tag(text, "question"))
    _check_question(question)
    answer = argument_value(one_tag(text, "answer"))
    if not answer:
        raise ParseError("<answer> must hold the true value, not 'none'")
    if contains_phrase(question, answer):
        raise ParseError(f"the question gives its answer away ({answer[:60]!r}); ask without naming it")
    negatives = [argument_value(negative) for negative in find_tags(text, "negative")]
    if len(negatives) != 3:
        raise ParseError(f"give exactly three <negative> answers, got {len(negatives)}")
    _check_distinct(negatives, answer, "true answer")
    return ArgumentQuestion(question, answer, tuple(negatives))


def parse_event_negatives(text: str, variables: Mapping[str, str]) -> tuple[NegativeEvent, ...]:
    target = read_arguments(variables["target_arguments"])
    blocks = find_tags(text, "negative")
    if len(blocks) != 3:
        raise ParseError(f"give exactly three <negative> blocks, got {len(blocks)}")
    negatives = []
    changed = ARGUMENT_NAMES[:4]  # the time argument stays the target's
    for number, block in enumerate(blocks, start=1):
        try:
            event_text = strip_list_mark(one_tag(block, "text"))
            values = {name: argument_value(one_tag(block, name, allow_empty=True)) for name in changed}
        except ParseError as error:
            raise ParseError(f"negative {number}: {error}") from None
        arguments = EventArguments(**values, time=target.time)
        if any(getattr(target, name) for name in changed) and all(
            fold(getattr(arguments, name)) == fold(getattr(target, name)) for name in changed
        ):
            raise ParseError(
                f"negative {number} keeps the true event's type, subject, object and location; "
                "replace at least one of them"
            )
        negatives.append(NegativeEvent(event_text, arguments))
    _check_distinct([negative.text for negative in negatives], variables["target_event"], "true event")
    return tuple(negatives)
