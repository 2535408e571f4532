"""Cut samples: each timeline's split, its chosen cuts, their background and (trimmed) targets.

Every chosen cut brings one candidate sample per task. A complex event is placed in one split before
any cut is chosen (``assign_split``); when it gets none, the cuts it would have had are still drawn so
that their candidates are counted, and all of them are rejected with the reason
(``outside_split_windows`` or ``straddles_split_boundary``). A cut left with no target inside its
window rejects its candidates with ``no_target_in_window``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step, fan_out
from almanac.events.cuts import (
    Cut,
    CutEvents,
    Event,
    EventTasksConfig,
    SplitWindows,
    assign_split,
    choose_days,
    eligible_cuts,
    trim_targets,
)
from almanac.events.hindsight import hindsight_phrase
from almanac.events.samples import SPLITS, TASKS, sample_id


@dataclass(frozen=True)
class CutSample:
    """One cut of one timeline, in a split: what every task of that cut is built from."""

    timeline: dict[str, Any]
    cut: Cut
    split: str
    background: list[Event]
    targets: list[Event]  # Y after trimming at the split window's end
    trimmed: int

    @property
    def ce_id(self) -> str:
        return self.cut.ce_id

    @property
    def source(self) -> str:
        return f"complex_event:{self.ce_id}@{self.cut.day.isoformat()}"

    def candidate_id(self, task: str) -> str:
        """Id of a rejected candidate whose target was never chosen."""
        return sample_id(task, self.ce_id, self.cut.day)

    def common(self, task: str, sample: str) -> dict[str, Any]:
        return {
            "sample_id": sample,
            "task": task,
            "split": self.split,
            "ce_id": self.ce_id,
            "origin": self.timeline["origin"],
            "ce_title": self.timeline["title"],
            "topic": self.timeline["topic"],
            "cut_date": self.cut.day,
            "background": self.background,
        }


def cut_sample(
    timeline: dict[str, Any], cut: Cut, division: CutEvents, windows: SplitWindows
) -> CutSample | None:
    """The sample of one cut, its targets trimmed at its split window's end; None with no target left."""
    if cut.split is None:
        return None
    targets, trimmed = trim_targets(division.targets, cut.split, windows)
    if not targets:
        return None
    return CutSample(timeline, cut, cut.split, division.background, targets, trimmed)


def plan_cuts(
    timelines: Sequence[dict[str, Any]], config: EventTasksConfig, ledger: StageLedger
) -> list[CutSample]:
    """Place each timeline in a split and choose its cuts; candidates that cannot be built are rejected."""
    ledger.extra.update(
        {
            "timelines_in": len(timelines),
            "timelines_with_cuts": 0,
            "cut_days_out_of_order": 0,
            "cut_days_in_later_windows": 0,  # eligible days left unused: their event went to an earlier split
            "undated_events_left_out": 0,  # per released cut: undated events, neither background nor target
            "straddling_events_left_out": 0,  # per released cut: intervals that hold the cut day
            "hindsight_events_left_out": 0,  # per released cut: background events with hindsight wording
        }
    )
    ledger.extra["timelines_without_cut"] = {}
    ledger.extra["cuts"] = {
        split: 0 for split in (*SPLITS, "outside_split_windows", "straddles_split_boundary")
    }
    ledger.extra["complex_events"] = {split: 0 for split in SPLITS}
    drawn: list[DrawnCut] = []
    for timeline in sorted(timelines, key=lambda row: row["ce_id"]):
        events = timeline["events"]
        eligible, out_of_order = eligible_cuts(events, config.min_background_events)
        ledger.extra["cut_days_out_of_order"] += out_of_order
        if not eligible:
            ledger.count("timelines_without_cut", _no_cut_reason(events, out_of_order))
            continue
        ledger.extra["timelines_with_cuts"] += 1
        split, days, reason = assign_split(eligible, config)
        if split is None:
            drawn += _unplaced(timeline["ce_id"], eligible, reason, config, ledger)
            continue
        ledger.extra["complex_events"][split] += 1
        ledger.extra["cut_days_in_later_windows"] += sum(
            1 for day in eligible if day not in days and config.split.split_of(day) is not None
        )
        for day in choose_days(timeline["ce_id"], days, config):
            planned = cut_sample(timeline, Cut(timeline["ce_id"], day, split), eligible[day], config.split)
            if planned is None:
                no_target = Drop("no_target_in_window", f"no target lies inside the {split} window")
                drawn.append(DrawnCut(timeline["ce_id"], day, no_target))
                continue
            kept = [e for e in planned.background if not hindsight_phrase(e["text"], config.hindsight_words)]
            if len(kept) < config.min_background_events:
                words = f"{len(planned.background) - len(kept)} background events use hindsight wording"
                drawn.append(DrawnCut(timeline["ce_id"], day, Drop("hindsight_background", words)))
                continue
            ledger.extra["hindsight_events_left_out"] += len(planned.background) - len(kept)
            planned = dataclasses.replace(planned, background=kept)
            ledger.extra["cuts"][split] += 1
            ledger.extra["undated_events_left_out"] += eligible[day].undated
            ledger.extra["straddling_events_left_out"] += eligible[day].straddling
            drawn.append(DrawnCut(timeline["ce_id"], day, planned))
    # Counting rule (almanac.core.step.fan_out): a drawn cut is one candidate sample per task; the
    # candidates of a cut that cannot be built are rejected here, the others go on to event_tasks.
    candidates = fan_out(drawn, _one_per_task, ledger, lambda cut: cut.ce_id, lambda cut: cut.source)
    apply_step(candidates, Step(_built, _candidate_id, _candidate_source), ledger, chained=True)
    return [cut.planned for cut in drawn if isinstance(cut.planned, CutSample)]


@dataclass(frozen=True)
class DrawnCut:
    """A chosen cut day of a complex event: its sample, or why none of its candidates can be built."""

    ce_id: str
    day: date
    planned: CutSample | Drop

    @property
    def source(self) -> str:
        return f"complex_event:{self.ce_id}@{self.day.isoformat()}"


Candidate = tuple[str, DrawnCut]  # (task, cut)


def _one_per_task(cut: DrawnCut) -> list[Candidate]:
    return [(task, cut) for task in TASKS]


def _built(candidate: Candidate) -> CutSample | Drop:
    return candidate[1].planned


def _candidate_id(candidate: Candidate) -> str:
    task, cut = candidate
    return sample_id(task, cut.ce_id, cut.day)


def _candidate_source(candidate: Candidate) -> str:
    return candidate[1].source


def _unplaced(
    ce_id: str, eligible: dict[date, CutEvents], reason: str, config: EventTasksConfig, ledger: StageLedger
) -> list[DrawnCut]:
    """Draw the cuts a complex event without a split would have had, each with the reason it is refused.

    The draw is over its days inside some window (``straddles_split_boundary``) or, with none, over
    all of them (``outside_split_windows``), so the counts say how many samples the rule cost.
    """
    windowed = [day for day in eligible if config.split.split_of(day) is not None]
    drawn = []
    for day in choose_days(ce_id, windowed or list(eligible), config):
        ledger.extra["cuts"][reason] += 1
        detail = (
            f"its cut days fall in more than one split window (split_boundary: {config.split_boundary})"
            if reason == "straddles_split_boundary"
            else f"cut day {day.isoformat()} is in no split window"
        )
        drawn.append(DrawnCut(ce_id, day, Drop(reason, detail)))
    return drawn


def _no_cut_reason(events: Sequence[Event], out_of_order: int) -> str:
    if not any(event["date_precision"] == "day" for event in events):
        return "no_day_dated_event"
    return "cut_days_out_of_order" if out_of_order else "too_little_background"
