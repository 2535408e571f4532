"""The ``event_arguments`` task: item, parser, and the offline argument extraction (``timeline_rules``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from almanac.events.llm_tasks.replies import ARGUMENT_NAMES, EventArguments, TimelineEvent, argument_value
from almanac.events.llm_tasks.timeline_rules import arguments_of
from almanac.events.llm_tasks.timelines import format_timeline, read_timeline
from almanac.llm.parsing import ParseError, find_tags, one_tag
from almanac.llm.registry import Task, TaskItem, register

_NUMBER = re.compile(r"^(?:event\s*)?#?\s*(\d+)\s*[.:)]?$", re.IGNORECASE)


def _numbers(numbers: list[int]) -> str:
    return ", ".join(str(number) for number in numbers)


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


def event_arguments_item(item_id: str, events: Sequence[TimelineEvent]) -> TaskItem:
    return TaskItem(item_id, {"events": format_timeline(events), "n_events": str(len(events))})


def event_arguments(variables: Mapping[str, str], model: str) -> str:
    blocks = []
    for number, event in enumerate(read_timeline(variables["events"]), start=1):
        arguments = arguments_of(event.text, event.date, model)
        fields = "".join(
            f"<{name}>{getattr(arguments, name) or 'none'}</{name}>"
            for name in ("event_type", "subject", "object", "location", "time")
        )
        blocks.append(f"<arguments><number>{number}</number>{fields}</arguments>")
    return "\n".join(blocks)


EVENT_ARGUMENTS = register(
    Task("event_arguments", item=event_arguments_item, parse=parse_event_arguments, offline=event_arguments)
)
