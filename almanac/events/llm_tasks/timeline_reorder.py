"""The ``timeline_reorder`` task: item, parser, and the offline re-order (``timeline_rules``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from almanac.events.llm_tasks.items import clip
from almanac.events.llm_tasks.replies import TimelineEvent, TimelineOrder
from almanac.events.llm_tasks.timeline_rules import effective_keys
from almanac.events.llm_tasks.timelines import format_timeline, read_timeline
from almanac.llm.parsing import ParseError, one_tag
from almanac.llm.registry import Task, TaskItem, register

_ORDER_SEPARATORS = re.compile(r"(?:->|[\s,;>\u2192])+")


_EVENT_WORD = re.compile(r"\bevents?\b", re.IGNORECASE)


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


def timeline_reorder_item(
    item_id: str, title: str, sources_text: str, events: Sequence[TimelineEvent], max_chars: int
) -> TaskItem:
    variables = {
        "title": title,
        "sources_text": clip(sources_text, max_chars),
        "timeline": format_timeline(events),
        "n_events": str(len(events)),
    }
    return TaskItem(item_id, variables)


def timeline_reorder(variables: Mapping[str, str], model: str) -> str:
    del model
    keys = effective_keys(read_timeline(variables["timeline"]))
    order = sorted(range(len(keys)), key=lambda index: keys[index])
    return f"<order>{', '.join(str(index + 1) for index in order)}</order>"


TIMELINE_REORDER = register(
    Task(
        "timeline_reorder", item=timeline_reorder_item, parse=parse_timeline_reorder, offline=timeline_reorder
    )
)
