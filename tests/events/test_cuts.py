"""Cut days, split windows and target trimming on hand-built timelines."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

import pytest

from almanac.core.params import parse_section
from almanac.core.rejects import StageLedger
from almanac.events.cuts import EventTasksConfig, SplitWindows, choose_cuts, eligible_cuts, trim_targets
from almanac.events.plan import plan_cuts
from almanac.events.tasks import ltf_row, stf_row
from tests.events.task_timelines import CONFIG, KESTREL, VELORIA, WINDOWS, event, timeline

ALL_CUTS = dataclasses.replace(CONFIG, cuts_per_event=10)


def texts(events: Sequence[Mapping[str, Any]]) -> list[Any]:
    return [e["text"] for e in events]


def test_windows_are_inclusive_and_leave_gaps_unassigned() -> None:
    assert WINDOWS.split_of(date(2025, 4, 30)) == "train"
    assert WINDOWS.split_of(date(1990, 1, 1)) == "train"
    assert WINDOWS.split_of(date(2025, 5, 1)) == WINDOWS.split_of(date(2025, 5, 31)) == "validation"
    assert WINDOWS.split_of(date(2025, 6, 1)) == WINDOWS.split_of(date(2025, 7, 31)) == "test"
    assert WINDOWS.split_of(date(2025, 8, 1)) is None
    gap = SplitWindows("2025-04-30", "2025-05-10", "2025-05-31", "2025-06-01", "2025-07-31")
    assert gap.split_of(date(2025, 5, 3)) is None


@pytest.mark.parametrize(
    "bounds",
    [
        ("2025-05-01", "2025-05-01", "2025-05-31", "2025-06-01", "2025-07-31"),  # train ends in validation
        ("2025-04-30", "2025-05-01", "2025-06-01", "2025-06-01", "2025-07-31"),  # validation overlaps test
        ("2025-04-30", "2025-05-01", "2025-05-31", "2025-06-01", "2025-13-01"),  # not a date
    ],
)
def test_bad_windows_are_refused(bounds: tuple[str, ...]) -> None:
    with pytest.raises(ValueError, match=r"event_tasks\.split"):
        SplitWindows(*bounds)


def test_config_reads_the_nested_split_section_from_params() -> None:
    params = {
        "event_tasks": {
            "seed": 5,
            "arguments": ["subject", "time"],
            "split": {
                "train_end": "2025-04-30",
                "validation_start": "2025-05-01",
                "validation_end": "2025-05-31",
                "test_start": "2025-06-01",
                "test_end": "2025-07-31",
            },
        }
    }
    config = parse_section(EventTasksConfig, params, "event_tasks")
    assert config.seed == 5 and config.arguments == ("subject", "time") and config.split == WINDOWS
    with pytest.raises(ValueError, match="arguments"):
        EventTasksConfig(arguments=("subject", "weather"))


def test_eligible_days_need_background_and_a_consistent_order() -> None:
    eligible, out_of_order = eligible_cuts(VELORIA["events"], 1)
    # 2025-03-02 is the first event: nothing before it to forecast from.
    assert eligible == {
        date(2025, 3, 10): 1,
        date(2025, 4, 12): 2,
        date(2025, 5, 20): 6,
        date(2025, 6, 3): 8,
        date(2025, 7, 15): 10,
    }
    assert out_of_order == 0
    assert set(eligible_cuts(VELORIA["events"], 3)[0]) == {
        date(2025, 5, 20),
        date(2025, 6, 3),
        date(2025, 7, 15),
    }

    # An event dated certainly after a day, placed before it, would leak the future into a background.
    shuffled = timeline(
        "ce-x",
        [("a", "2025-01-01"), ("b", "2025-03-01"), ("c", "2025-02-01"), ("d", "2025-04-01")],
    )["events"]
    eligible, out_of_order = eligible_cuts(shuffled, 1)
    assert eligible == {date(2025, 4, 1): 3}  # 03-01 has a target before it, 02-01 a future background
    assert out_of_order == 2


def test_cut_choice_is_seeded_per_complex_event_and_ignores_input_order() -> None:
    rows = [timeline(f"ce-{n}", [(f"e{i}", f"2025-03-{i + 1:02d}") for i in range(8)]) for n in range(12)]
    first = plan_cuts(rows, CONFIG, StageLedger("t"))
    again = plan_cuts(list(reversed(rows)), CONFIG, StageLedger("t"))
    alone = plan_cuts([rows[5]], CONFIG, StageLedger("t"))
    chosen = {(c.ce_id, c.cut.day) for c in first}
    assert chosen == {(c.ce_id, c.cut.day) for c in again}
    assert {c.cut.day for c in alone} == {day for ce, day in chosen if ce == "ce-5"}
    by_ce: dict[str, set[date]] = {}
    for ce, day in chosen:
        by_ce.setdefault(ce, set()).add(day)
    assert all(len(days) == 2 for days in by_ce.values()) and len(by_ce) == 12
    assert all(day != date(2025, 3, 1) for days in by_ce.values() for day in days)  # no background
    assert len({frozenset(days) for days in by_ce.values()}) > 1  # the complex event's id is in the seed
    other_seed = dataclasses.replace(CONFIG, seed=14)
    eligible = eligible_cuts(rows[0]["events"], 1)[0]
    draws = {tuple(c.day for c in choose_cuts(f"ce-{n}", eligible, other_seed)) for n in range(12)}
    assert draws != {tuple(c.day for c in choose_cuts(f"ce-{n}", eligible, CONFIG)) for n in range(12)}


def test_stf_is_exactly_the_events_of_the_cut_day_and_ltf_everything_after() -> None:
    cuts = {c.cut.day: c for c in plan_cuts([VELORIA], ALL_CUTS, StageLedger("t"))}
    april = cuts[date(2025, 4, 12)]
    assert april.split == "train"
    assert texts(april.background) == [
        "Protesters marched through Veloria.",
        "The government declared a curfew.",
    ]
    stf = stf_row(april)
    # The undated event between the two April 12 events is a target of LTF, not of STF.
    assert texts(stf["targets"]) == ["Talks opened in Geneva.", "A ceasefire was signed."]
    test_cut = cuts[date(2025, 6, 3)]
    assert test_cut.split == "test"
    ltf = ltf_row(test_cut)
    assert texts(ltf["targets"]) == [
        "Parliament was dissolved.",
        "Opposition leaders were detained.",
        "A new government was sworn in.",
    ]
    assert ltf["targets_trimmed"] == 0 and ltf["cut_date"] == date(2025, 6, 3)


def test_train_and_validation_targets_stop_before_the_test_start() -> None:
    cuts = {c.cut.day: c for c in plan_cuts([VELORIA], ALL_CUTS, StageLedger("t"))}
    april = ltf_row(cuts[date(2025, 4, 12)])
    # "Campaigning began nationwide." (2025-06) may fall in the test period: it and all after it go,
    # the undated "Opposition leaders were detained." included.
    assert texts(april["targets"]) == [
        "Talks opened in Geneva.",
        "Delegates met privately.",
        "A ceasefire was signed.",
        "Monitors arrived.",
        "Elections were scheduled.",
    ]
    assert april["targets_trimmed"] == 4
    may = ltf_row(cuts[date(2025, 5, 20)])
    assert may["split"] == "validation" and texts(may["targets"]) == ["Elections were scheduled."]
    for cut in cuts.values():
        if cut.split != "test":
            assert all(e["date"] < "2025-06" for e in cut.targets if e["date"] != "unknown")


def test_trimming_treats_coarse_dates_by_their_last_possible_day() -> None:
    events = [
        event("c", 0, "may", "2025-05"),
        event("c", 1, "undated", "unknown"),
        event("c", 2, "the year", "2025"),
        event("c", 3, "july", "2025-07-02"),
    ]
    assert [e["text"] for e in trim_targets(events, "validation", WINDOWS)[0]] == ["may", "undated"]
    assert trim_targets(events, "train", WINDOWS)[1] == 2
    assert trim_targets(events, "test", WINDOWS) == (events, 0)


def test_timelines_without_a_cut_are_counted_by_reason() -> None:
    undated = timeline("ce-undated", [("a",), ("b",)])
    lonely = timeline("ce-lonely", [("only", "2025-03-01"), ("after", "unknown")])
    ledger = StageLedger("t")
    cuts = plan_cuts([undated, lonely, KESTREL], CONFIG, ledger)
    assert {c.ce_id for c in cuts} == {"ce-kestrel"}
    assert ledger.extra["timelines_without_cut"] == {"no_day_dated_event": 1, "too_little_background": 1}
    assert ledger.extra["timelines_with_cuts"] == 1 and ledger.extra["timelines_in"] == 3
