"""Cut samples: each timeline's chosen cuts with their background and (trimmed) targets.

Every chosen cut brings one candidate sample per task; a cut whose day lies in no split window is
counted here, all of its candidates rejected with ``outside_split_windows``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from almanac.core.rejects import StageLedger
from almanac.events.cuts import Cut, Event, EventTasksConfig, choose_cuts, eligible_cuts, trim_targets
from almanac.events.samples import SPLITS, TASKS, sample_id


@dataclass(frozen=True)
class CutSample:
    """One cut of one timeline, in a split: what every task of that cut is built from."""

    timeline: dict[str, Any]
    cut: Cut
    split: str
    background: list[Event]
    targets: list[Event]  # Y after trimming
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


def plan_cuts(
    timelines: Sequence[dict[str, Any]], config: EventTasksConfig, ledger: StageLedger
) -> list[CutSample]:
    """Choose each timeline's cuts; candidates of cuts outside every split window are rejected here."""
    ledger.extra.update(
        {"timelines_in": len(timelines), "timelines_with_cuts": 0, "cut_days_out_of_order": 0}
    )
    ledger.extra["timelines_without_cut"] = {}
    ledger.extra["cuts"] = {split: 0 for split in (*SPLITS, "outside_split_windows")}
    planned = []
    for timeline in sorted(timelines, key=lambda row: row["ce_id"]):
        events = timeline["events"]
        eligible, out_of_order = eligible_cuts(events, config.min_background_events)
        ledger.extra["cut_days_out_of_order"] += out_of_order
        if not eligible:
            ledger.count("timelines_without_cut", _no_cut_reason(events, out_of_order))
            continue
        ledger.extra["timelines_with_cuts"] += 1
        for cut in choose_cuts(timeline["ce_id"], eligible, config):
            ledger.items_in += len(TASKS)
            if cut.split is None:
                ledger.extra["cuts"]["outside_split_windows"] += 1
                for task in TASKS:
                    ledger.reject(
                        sample_id(task, cut.ce_id, cut.day),
                        "outside_split_windows",
                        f"cut day {cut.day.isoformat()} is in no split window",
                        f"complex_event:{cut.ce_id}@{cut.day.isoformat()}",
                    )
                continue
            ledger.extra["cuts"][cut.split] += 1
            targets, trimmed = trim_targets(events[cut.index :], cut.split, config.split)
            planned.append(CutSample(timeline, cut, cut.split, events[: cut.index], targets, trimmed))
    return planned


def _no_cut_reason(events: Sequence[Event], out_of_order: int) -> str:
    if not any(event["date_precision"] == "day" for event in events):
        return "no_day_dated_event"
    return "cut_days_out_of_order" if out_of_order else "too_little_background"
