"""The ``timeline_complement`` task: item, parser, and the offline complement (``timeline_rules``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date

from almanac.core.text import fold
from almanac.events.llm_tasks.date_mentions import date_key
from almanac.events.llm_tasks.items import clip, day_or_unknown
from almanac.events.llm_tasks.replies import Timeline, TimelineEvent
from almanac.events.llm_tasks.timeline_rules import (
    covered,
    document_day,
    effective_keys,
    extract_events,
    render_timeline,
)
from almanac.events.llm_tasks.timelines import answer_events, format_timeline, read_timeline
from almanac.llm.parsing import ParseError
from almanac.llm.registry import Task, TaskItem, register


def parse_timeline_complement(text: str, variables: Mapping[str, str]) -> Timeline:
    """The completed timeline; every given event must be in it, worded as given and in the given order.

    Matching folds case and punctuation; a matched event keeps the given wording byte for byte (so its
    id stays stable across rounds) and takes the answer's date unless that date was dropped to unknown.
    """
    given = read_timeline(variables["timeline"])
    events = answer_events(text)
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


def timeline_complement_item(
    item_id: str,
    events: Sequence[TimelineEvent],
    news_date: date | None,
    news_title: str,
    news_text: str,
    max_chars: int,
) -> TaskItem:
    variables = {
        "timeline": format_timeline(events),
        "n_events": str(len(events)),
        "news_date": day_or_unknown(news_date),
        "news_title": news_title,
        "news_text": clip(news_text, max_chars),
    }
    return TaskItem(item_id, variables)


def timeline_complement(variables: Mapping[str, str], model: str) -> str:
    timeline = read_timeline(variables["timeline"])
    news_date = document_day(variables["news_date"])
    for event in extract_events(variables["news_text"], variables["news_title"], news_date, model):
        if covered(event.text, timeline, model):
            continue
        key = date_key(event.date)
        keys = effective_keys(timeline)
        later = [index for index, other in enumerate(keys) if key is not None and other > key]
        timeline.insert(later[0] if later else len(timeline), event)
    return render_timeline(timeline)


TIMELINE_COMPLEMENT = register(
    Task(
        "timeline_complement",
        item=timeline_complement_item,
        parse=parse_timeline_complement,
        offline=timeline_complement,
    )
)
