"""Cut days T_k, split windows and target trimming: the leakage-relevant part of the task builder.

A timeline is a list of atomic events in chronological order (the timeline stage sorts dated events by
the first day their date can mean). A cut at day T splits it at the first event dated exactly T:
events before it are the background X, that event and everything after it the targets Y. Which days
are cut is decided by a random generator seeded with the params seed and the complex event's id, so
a complex event's cuts do not depend on which other complex events are in the input or their order.
"""

from __future__ import annotations

import calendar
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from almanac.llm.event_outputs import ARGUMENT_NAMES, EventArguments, EventDate, TimelineEvent

Event = Mapping[str, Any]  # one ATOMIC_EVENT_TYPE record


@dataclass(frozen=True)
class SplitWindows:
    """Split of a sample by its cut day (inclusive bounds); train has no lower bound.

    Defaults are the paper's; params set the windows to the months the bundled sample covers.
    """

    train_end: str = "2023-06-30"
    validation_start: str = "2023-07-01"
    validation_end: str = "2023-08-31"
    test_start: str = "2023-09-01"
    test_end: str = "2024-03-31"

    def __post_init__(self) -> None:
        days = [self._day(name) for name in ("train_end", "validation_start", "validation_end")]
        days += [self._day("test_start"), self._day("test_end")]
        train_end, validation_start, validation_end, test_start, test_end = days
        if not (train_end < validation_start <= validation_end < test_start <= test_end):
            raise ValueError(
                "event_tasks.split: need train_end < validation_start <= validation_end < test_start"
                f" <= test_end, got {[day.isoformat() for day in days]}"
            )

    def _day(self, name: str) -> date:
        value = getattr(self, name)
        try:
            return date.fromisoformat(value)
        except (TypeError, ValueError):
            raise ValueError(f"event_tasks.split.{name} must be a yyyy-mm-dd date, got {value!r}") from None

    @property
    def test_start_day(self) -> date:
        return date.fromisoformat(self.test_start)

    def split_of(self, day: date) -> str | None:
        """The split whose window holds ``day``, or None in a gap or after the test end."""
        if day <= date.fromisoformat(self.train_end):
            return "train"
        if date.fromisoformat(self.validation_start) <= day <= date.fromisoformat(self.validation_end):
            return "validation"
        if self.test_start_day <= day <= date.fromisoformat(self.test_end):
            return "test"
        return None


@dataclass(frozen=True)
class EventTasksConfig:
    seed: int = 13
    cuts_per_event: int = 2  # distinct cut days per complex event, when it has that many eligible days
    min_background_events: int = 1  # events a cut needs before it
    arguments: tuple[str, ...] = ARGUMENT_NAMES  # arguments AQA / MCAC may ask about
    role: str = "annotator"
    split: SplitWindows = field(default_factory=SplitWindows)

    def __post_init__(self) -> None:
        if self.cuts_per_event < 1 or self.min_background_events < 1:
            raise ValueError("event_tasks: cuts_per_event and min_background_events must be >= 1")
        unknown = sorted(set(self.arguments) - set(ARGUMENT_NAMES))
        if unknown or not self.arguments or len(set(self.arguments)) != len(self.arguments):
            raise ValueError(
                f"event_tasks.arguments must be distinct names from {ARGUMENT_NAMES}, got {self.arguments}"
            )


@dataclass(frozen=True)
class Cut:
    ce_id: str
    day: date  # T_k
    index: int  # position of the first event dated T_k: background = events[:index]
    split: str | None  # None: T_k lies outside every split window


def seeded(seed: int, *parts: object) -> random.Random:
    """A generator for one decision about one item, independent of every other item's."""
    return random.Random(":".join([str(seed), *(str(part) for part in parts)]))


def date_span(event: Event) -> tuple[date, date] | None:
    """First and last day the event's date can mean; None when undated."""
    precision, text = event["date_precision"], event["date"]
    if precision == "day":
        day = date.fromisoformat(text)
        return day, day
    if precision == "month":
        year, month = int(text[:4]), int(text[5:7])
        return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])
    if precision == "year":
        return date(int(text), 1, 1), date(int(text), 12, 31)
    return None


def eligible_cuts(events: Sequence[Event], min_background: int) -> tuple[dict[date, int], int]:
    """Cut days -> index of their first event, and how many days failed the chronology check.

    A day qualifies when an event is dated exactly that day, at least ``min_background`` events come
    before the first such event, no background event is dated certainly after the day and no target
    certainly before it. A sorted timeline passes the check on every day; it guards against inputs
    whose order would otherwise put a future event into a background.
    """
    first_index: dict[date, int] = {}
    for index, event in enumerate(events):
        if event["date_precision"] == "day":
            first_index.setdefault(date.fromisoformat(event["date"]), index)
    spans = [date_span(event) for event in events]
    eligible: dict[date, int] = {}
    out_of_order = 0
    for day, index in sorted(first_index.items()):
        if index < min_background:
            continue
        future_background = any(span is not None and span[0] > day for span in spans[:index])
        past_target = any(span is not None and span[1] < day for span in spans[index:])
        if future_background or past_target:
            out_of_order += 1
            continue
        eligible[day] = index
    return eligible, out_of_order


def choose_cuts(ce_id: str, eligible: Mapping[date, int], config: EventTasksConfig) -> list[Cut]:
    """Up to ``cuts_per_event`` distinct days, drawn with a generator seeded by the complex event."""
    days = sorted(eligible)
    chosen = seeded(config.seed, ce_id, "cuts").sample(days, min(config.cuts_per_event, len(days)))
    return [Cut(ce_id, day, eligible[day], config.split.split_of(day)) for day in sorted(chosen)]


def trim_targets(targets: Sequence[Event], split: str, windows: SplitWindows) -> tuple[list[Event], int]:
    """Train/validation targets up to the first event that may fall on or after the test start.

    Everything after that event goes too, dated or not: an undated event that follows a test-period
    event in a chronological timeline is itself in the test period as far as anyone can tell.
    """
    if split == "test":
        return list(targets), 0
    for index, event in enumerate(targets):
        span = date_span(event)
        if span is not None and span[1] >= windows.test_start_day:
            return list(targets[:index]), len(targets) - index
    return list(targets), 0


def timeline_event(event: Event) -> TimelineEvent:
    return TimelineEvent(str(event["text"]), EventDate(str(event["date"]), str(event["date_precision"])))


def event_arguments(event: Event) -> EventArguments:
    return EventArguments(**{name: str(event[name] or "") for name in ARGUMENT_NAMES})
