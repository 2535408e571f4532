"""Helpers of the complex-event task items: clipped texts, day strings, the sample variables."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from almanac.events.llm_tasks.replies import ARGUMENT_NAMES, EventArguments, TimelineEvent, format_arguments
from almanac.events.llm_tasks.timelines import format_timeline


def clip(text: str, max_chars: int) -> str:
    """``text`` cut at a word boundary before ``max_chars``, with " ..." appended (``<= 0``: no cut)."""
    if max_chars <= 0 or len(text) <= max_chars:
        return text
    return text[:max_chars].rsplit(" ", 1)[0] + " ..."


def day_or_unknown(moment: date | None) -> str:
    return moment.strftime("%Y-%m-%d") if moment is not None else "unknown"


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


def sample_variables(
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
