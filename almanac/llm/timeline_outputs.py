"""The timeline text format and the strict parsers of the timeline tasks (extract, complement, re-order).

A timeline shown to a model is one ``<event>`` line per atomic event, numbered from 1; a model answers
with the same ``<event>`` blocks (the number is optional there) inside ``<timeline>``. Reading both
directions with one function keeps what the stage sends and what it accepts in step.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from almanac.core.text import fold
from almanac.llm.event_outputs import (
    Timeline,
    TimelineEvent,
    TimelineOrder,
    normalise_event_date,
    strip_list_mark,
)
from almanac.llm.parsing import ParseError, collapse, find_tags, one_tag

NO_EVENTS = "(no events yet)"
_ORDER_SEPARATORS = re.compile(r"(?:->|[\s,;>\u2192])+")
_EVENT_WORD = re.compile(r"\bevents?\b", re.IGNORECASE)


def format_timeline(events: Sequence[TimelineEvent]) -> str:
    if not events:
        return NO_EVENTS
    return "\n".join(
        f"<event><number>{number}</number><date>{event.date.date}</date><text>{collapse(event.text)}</text></event>"
        for number, event in enumerate(events, start=1)
    )


def _read_events(text: str) -> list[TimelineEvent]:
    events = []
    for number, block in enumerate(find_tags(text, "event"), start=1):
        try:
            date = normalise_event_date(one_tag(block, "date"))
            event_text = strip_list_mark(one_tag(block, "text"))
        except ParseError as error:
            raise ParseError(f"<event> {number}: {error}") from None
        if not event_text:
            raise ParseError(f"<event> {number}: <text> is empty")
        events.append(TimelineEvent(event_text, date))
    return events


def read_timeline(text: str) -> list[TimelineEvent]:
    """The inverse of :func:`format_timeline`."""
    events = _read_events(text)
    if not events and text.strip() not in ("", NO_EVENTS):
        raise ParseError("a timeline must be <event> lines or " + repr(NO_EVENTS))
    return events


def _answer_events(text: str) -> list[TimelineEvent]:
    body = one_tag(text, "timeline")
    events = _read_events(body)
    if not events and fold(body) != "none":
        raise ParseError(
            "<timeline> holds no <event><date>...</date><text>...</text></event> blocks; "
            "write <timeline>none</timeline> only if no event is reported"
        )
    return events


def parse_timeline_extract(text: str, variables: Mapping[str, str]) -> Timeline:
    del variables
    return Timeline(tuple(_answer_events(text)))


def parse_timeline_complement(text: str, variables: Mapping[str, str]) -> Timeline:
    """The completed timeline; every given event must be in it, worded as given and in the given order.

    Matching folds case and punctuation; a matched event keeps the given wording byte for byte (so its
    id stays stable across rounds) and takes the answer's date unless that date was dropped to unknown.
    """
    given = read_timeline(variables["timeline"])
    events = _answer_events(text)
    keys = [fold(event.text) for event in events]
    start = 0
    for number, old in enumerate(given, start=1):
        key = fold(old.text)
        if key not in keys:
            raise ParseError(
                f"existing event {number} is missing or reworded: {old.text[:120]!r}; "
                "copy every existing event with its text unchanged"
            )
        if key not in keys[start:]:
            raise ParseError(
                f"existing event {number} ({old.text[:80]!r}) was moved; keep the existing events in their "
                "given order and put new events before, between or after them"
            )
        found = keys.index(key, start)
        new_date = events[found].date
        events[found] = TimelineEvent(old.text, old.date if new_date.precision == "unknown" else new_date)
        start = found + 1
    return Timeline(tuple(events))


def parse_timeline_reorder(text: str, variables: Mapping[str, str]) -> TimelineOrder:
    count = int(variables["n_events"])
    raw = _EVENT_WORD.sub(" ", one_tag(text, "order")).strip().strip("[]().")
    numbers = []
    for token in _ORDER_SEPARATORS.split(raw):
        digits = token.strip("#.()[]")
        if not token:
            continue
        if not digits.isdigit():
            raise ParseError(
                "<order> must list event numbers separated by commas, like <order>2, 1, 3</order>; "
                f"got {token[:20]!r}"
            )
        numbers.append(int(digits))
    problems = []
    outside = [number for number in numbers if not 1 <= number <= count]
    repeated = sorted({number for number in numbers if numbers.count(number) > 1})
    missing = [number for number in range(1, count + 1) if number not in numbers]
    if outside:
        problems.append("not event numbers: " + ", ".join(map(str, outside)))
    if repeated:
        problems.append("repeated: " + ", ".join(map(str, repeated)))
    if missing:
        problems.append("missing: " + ", ".join(map(str, missing)))
    if problems:
        raise ParseError(
            f"<order> must list each number from 1 to {count} exactly once ({'; '.join(problems)})"
        )
    return TimelineOrder(tuple(number - 1 for number in numbers))
