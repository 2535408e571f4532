"""The timeline text format: numbered ``<event>`` lines to a model, and their reader (its inverse)."""

from __future__ import annotations

from collections.abc import Sequence

from almanac.core.text import fold
from almanac.events.llm_tasks.replies import TimelineEvent, normalise_event_date, strip_list_mark
from almanac.llm.parsing import ParseError, collapse, find_tags, one_tag

NO_EVENTS = "(no events yet)"


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


def answer_events(text: str) -> list[TimelineEvent]:
    body = one_tag(text, "timeline")
    events = _read_events(body)
    if not events and fold(body) != "none":
        raise ParseError(
            "<timeline> holds no <event><date>...</date><text>...</text></event> blocks; "
            "write <timeline>none</timeline> only if no event is reported"
        )
    return events
