"""Builders of the complex-event task items, and the text formats their inputs are written in.

Timelines go to a model as numbered ``<event>`` lines (:func:`format_timeline`), arguments as five
``name: value`` lines (:func:`format_arguments`); the ``read_*`` functions are their inverses, used by
parsers that check an answer against its input and by the offline baseline. The formats are defined
next to the parsers (``event_outputs``, ``timeline_outputs``) and exported here for the builders' users.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from almanac.llm.event_outputs import (
    ARGUMENT_NAMES,
    EventArguments,
    TimelineEvent,
    format_arguments,
    normalise_event_date,
    read_arguments,
)
from almanac.llm.tasks import TaskItem
from almanac.llm.timeline_outputs import NO_EVENTS, format_timeline, read_timeline

__all__ = [
    "NO_EVENTS",
    "argument_question_item",
    "article_category_item",
    "clip",
    "event_arguments_item",
    "event_negatives_item",
    "format_arguments",
    "format_timeline",
    "normalise_event_date",
    "occurrence_date_item",
    "read_arguments",
    "read_timeline",
    "target_argument_value",
    "timeline_complement_item",
    "timeline_extract_item",
    "timeline_reorder_item",
]


def clip(text: str, max_chars: int) -> str:
    """``text`` cut at a word boundary before ``max_chars``, with " ..." appended (``<= 0``: no cut)."""
    if max_chars <= 0 or len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit(" ", 1)[0] + " ..."


def _day(moment: date | None) -> str:
    return moment.strftime("%Y-%m-%d") if moment is not None else "unknown"


def article_category_item(item_id: str, title: str, text: str, max_chars: int) -> TaskItem:
    return TaskItem(item_id, {"title": title, "article_text": clip(text, max_chars)})


def occurrence_date_item(item_id: str, title: str, text: str, max_chars: int) -> TaskItem:
    return TaskItem(item_id, {"title": title, "article_text": clip(text, max_chars)})


def timeline_extract_item(
    item_id: str, title: str, document_date: date | None, text: str, max_chars: int
) -> TaskItem:
    variables = {"title": title, "document_date": _day(document_date), "article_text": clip(text, max_chars)}
    return TaskItem(item_id, variables)


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
        "news_date": _day(news_date),
        "news_title": news_title,
        "news_text": clip(news_text, max_chars),
    }
    return TaskItem(item_id, variables)


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


def event_arguments_item(item_id: str, events: Sequence[TimelineEvent]) -> TaskItem:
    return TaskItem(item_id, {"events": format_timeline(events), "n_events": str(len(events))})


def target_argument_value(target: TimelineEvent, arguments: EventArguments, argument: str) -> str:
    """The value a question about ``argument`` of ``target`` has as its answer ("" when there is none).

    An event without a stated time argument still has its timeline date, which answers "When ...?".
    """
    if argument not in ARGUMENT_NAMES:
        raise ValueError(f"unknown argument {argument!r}; expected one of {ARGUMENT_NAMES}")
    value: str = getattr(arguments, argument)
    if not value and argument == "time" and target.date.precision != "unknown":
        return target.date.date
    return value


def _sample_variables(
    background: Sequence[TimelineEvent],
    target: TimelineEvent,
    target_arguments: EventArguments,
    subsequent: Sequence[TimelineEvent],
) -> dict[str, str]:
    return {
        "background": format_timeline(background),
        "target_event": target.text,
        "target_date": target.date.date,
        "target_arguments": format_arguments(target_arguments),
        "subsequent_events": format_timeline(subsequent),
    }


def argument_question_item(
    item_id: str,
    background: Sequence[TimelineEvent],
    target: TimelineEvent,
    target_arguments: EventArguments,
    argument: str,
    subsequent: Sequence[TimelineEvent],
) -> TaskItem:
    """Raises ``ValueError`` when the target has no value for ``argument`` (check
    :func:`target_argument_value` first): a question without an answer cannot be asked."""
    value = target_argument_value(target, target_arguments, argument)
    if not value:
        raise ValueError(f"target event has no {argument!r} argument to ask about: {target.text[:80]!r}")
    variables = _sample_variables(background, target, target_arguments, subsequent)
    return TaskItem(item_id, {**variables, "argument": argument, "argument_value": value})


def event_negatives_item(
    item_id: str,
    background: Sequence[TimelineEvent],
    target: TimelineEvent,
    target_arguments: EventArguments,
    subsequent: Sequence[TimelineEvent],
) -> TaskItem:
    return TaskItem(item_id, _sample_variables(background, target, target_arguments, subsequent))
