"""Cut days, date intervals, one split per complex event and trimming at each split's end."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

import pytest

from almanac.core.params import parse_section
from almanac.core.rejects import StageLedger
from almanac.events.cuts import (
    Cut,
    EventTasksConfig,
    SplitWindows,
    assign_split,
    choose_days,
    divide,
    eligible_cuts,
    trim_targets,
)
from almanac.events.plan import cut_sample, plan_cuts
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
    # A whole interval must fit: May in validation, but not the year 2025 nor April-in-validation.
    may, year = (date(2025, 5, 1), date(2025, 5, 31)), (date(2025, 1, 1), date(2025, 12, 31))
    assert WINDOWS.holds("validation", may) and not WINDOWS.holds("train", may)
    assert not WINDOWS.holds("test", year) and not WINDOWS.holds("validation", None)


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
    assert config.split_boundary == "earlier"
    with pytest.raises(ValueError, match="arguments"):
        EventTasksConfig(arguments=("subject", "weather"))
    with pytest.raises(ValueError, match="split_boundary"):
        EventTasksConfig(split_boundary="later")


def test_background_ends_before_the_cut_and_targets_start_on_or_after_it() -> None:
    # Old rule: a "2025-06" event sorted as 1 June and sat in the background of a cut on 3 June.
    division = divide(VELORIA["events"], date(2025, 6, 3))
    assert "Campaigning began nationwide." not in texts(division.background)
    assert "Campaigning began nationwide." not in texts(division.targets)
    assert texts(division.targets) == ["Parliament was dissolved.", "A new government was sworn in."]
    assert texts(division.background)[-1] == "Elections were scheduled."
    assert (division.straddling, division.undated) == (1, 2)
    # "Monitors arrived." (April) holds the 12 April cut: in neither list; by 20 May it is background.
    april = divide(VELORIA["events"], date(2025, 4, 12))
    assert texts(april.targets) == [
        "Talks opened in Geneva.",
        "A ceasefire was signed.",
        "Elections were scheduled.",
        "Campaigning began nationwide.",
        "Parliament was dissolved.",
        "A new government was sworn in.",
    ]
    assert april.straddling == 1 and "Monitors arrived." in texts(
        divide(VELORIA["events"], date(2025, 5, 20)).background
    )
    # A year-dated event is background only once the whole year is over.
    year = [
        event("y", 0, "the year", "2024"),
        event("y", 1, "a day", "2024-12-31"),
        event("y", 2, "next", "2025-01-01"),
    ]
    assert texts(divide(year, date(2024, 12, 31)).background) == []
    assert texts(divide(year, date(2025, 1, 1)).background) == ["the year", "a day"]


def test_eligible_days_need_background_and_a_consistent_order() -> None:
    eligible, out_of_order = eligible_cuts(VELORIA["events"], 1)
    # 2025-03-02 is the first event: nothing ends before it.
    assert sorted(eligible) == [
        date(2025, 3, 10),
        date(2025, 4, 12),
        date(2025, 5, 20),
        date(2025, 6, 3),
        date(2025, 7, 15),
    ]
    assert out_of_order == 0
    # Background sizes: 1, 2 (April is not over on 12 April), 5, 6 ("2025-06" is not over on 3 June), 8.
    assert [len(eligible[day].background) for day in sorted(eligible)] == [1, 2, 5, 6, 8]
    assert set(eligible_cuts(VELORIA["events"], 3)[0]) == {
        date(2025, 5, 20),
        date(2025, 6, 3),
        date(2025, 7, 15),
    }

    # A timeline whose order contradicts its dates is not cut where it would matter.
    shuffled = timeline(
        "ce-x",
        [("a", "2025-01-01"), ("b", "2025-03-01"), ("c", "2025-02-01"), ("d", "2025-04-01")],
    )["events"]
    eligible, out_of_order = eligible_cuts(shuffled, 1)
    assert set(eligible) == {date(2025, 4, 1)}  # 03-01 has a background after it, 02-01 a target before
    assert out_of_order == 2


def test_one_split_per_complex_event_by_rule() -> None:
    days = [date(2025, 3, 10), date(2025, 5, 20), date(2025, 6, 3), date(2025, 8, 5)]
    assert assign_split(days, CONFIG) == ("train", [date(2025, 3, 10)], "")
    assert assign_split(days[1:], CONFIG) == ("validation", [date(2025, 5, 20)], "")
    dropping = dataclasses.replace(CONFIG, split_boundary="drop")
    assert assign_split(days, dropping) == (None, [], "straddles_split_boundary")
    assert assign_split(days[2:], dropping) == ("test", [date(2025, 6, 3)], "")  # 08-05 is in no window
    assert assign_split([date(2025, 8, 5)], CONFIG) == (None, [], "outside_split_windows")


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
    pool = sorted(eligible_cuts(rows[0]["events"], 1)[0])
    draws = {tuple(choose_days(f"ce-{n}", pool, other_seed)) for n in range(12)}
    assert draws != {tuple(choose_days(f"ce-{n}", pool, CONFIG)) for n in range(12)}


def test_a_complex_event_spanning_three_windows_stays_in_the_earliest() -> None:
    # Old rule: Veloria had cuts in train, validation and test at once.
    ledger = StageLedger("t")
    cuts = {c.cut.day: c for c in plan_cuts([VELORIA], ALL_CUTS, ledger)}
    assert sorted(cuts) == [date(2025, 3, 10), date(2025, 4, 12)]
    assert {c.split for c in cuts.values()} == {"train"}
    assert ledger.extra["complex_events"] == {"train": 1, "validation": 0, "test": 0}
    assert ledger.extra["cut_days_in_later_windows"] == 3
    april = cuts[date(2025, 4, 12)]
    assert texts(april.background) == [
        "Protesters marched through Veloria.",
        "The government declared a curfew.",
    ]
    # The undated event between the two April 12 events and the April-dated one are in neither list.
    assert texts(stf_row(april)["targets"]) == ["Talks opened in Geneva.", "A ceasefire was signed."]
    # Two undated + one straddling at 04-12, two undated at 03-10.
    assert ledger.extra["undated_events_left_out"] == 4 and ledger.extra["straddling_events_left_out"] == 1


def test_drop_rule_rejects_every_candidate_of_a_straddling_complex_event() -> None:
    ledger = StageLedger("t")
    assert plan_cuts([VELORIA], dataclasses.replace(ALL_CUTS, split_boundary="drop"), ledger) == []
    # All five windowed days are drawn (cuts_per_event 10), six candidates each.
    assert ledger.items_in == 30 and {r.reason for r in ledger.rejects} == {"straddles_split_boundary"}
    assert len(ledger.rejects) == 30 and ledger.extra["cuts"]["straddles_split_boundary"] == 5
    kept = plan_cuts([KESTREL], dataclasses.replace(ALL_CUTS, split_boundary="drop"), StageLedger("t"))
    assert {c.split for c in kept} == {"train"} and len(kept) == 3  # one window: nothing to drop


def test_train_targets_stop_at_the_train_end_not_the_test_start() -> None:
    cuts = {c.cut.day: c for c in plan_cuts([VELORIA], ALL_CUTS, StageLedger("t"))}
    # Old rule: "Elections were scheduled." (20 May, validation) was a train target.
    march = ltf_row(cuts[date(2025, 3, 10)])
    assert texts(march["targets"]) == [
        "The government declared a curfew.",
        "Talks opened in Geneva.",
        "A ceasefire was signed.",
        "Monitors arrived.",  # April: wholly inside train
    ]
    assert march["targets_trimmed"] == 4  # elections, campaigning, parliament, new government
    april = ltf_row(cuts[date(2025, 4, 12)])
    assert texts(april["targets"]) == ["Talks opened in Geneva.", "A ceasefire was signed."]
    assert april["targets_trimmed"] == 4


def test_validation_and_test_targets_stop_at_their_own_window_end() -> None:
    may = timeline(
        "ce-may",
        [
            ("Results were due.", "2025-05"),
            ("Ballots were printed.", "2025-05-02"),
            ("A debate was held.", "2025-05-10"),
            ("The vote took place.", "2025-05-25"),
            ("A coalition was formed.", "2025-06-05"),
            ("A budget was passed.", "2025-06-30"),
        ],
    )
    summer = timeline(
        "ce-summer",
        [
            ("A strike was called.", "2025-06-10"),
            ("Talks failed.", "2025-07-20"),
            ("The strike ended.", "2025-08-02"),
        ],
    )
    ledger = StageLedger("t")
    cuts = {(c.ce_id, c.cut.day): c for c in plan_cuts([may, summer], ALL_CUTS, ledger)}
    assert sorted(cuts) == [
        ("ce-may", date(2025, 5, 10)),
        ("ce-may", date(2025, 5, 25)),
        ("ce-summer", date(2025, 7, 20)),
    ]
    debate = ltf_row(cuts[("ce-may", date(2025, 5, 10))])
    assert debate["split"] == "validation"
    assert texts(debate["targets"]) == ["A debate was held.", "The vote took place."]
    assert debate["targets_trimmed"] == 2
    # Old rule: test targets were never trimmed, so an August event was a test label.
    talks = ltf_row(cuts[("ce-summer", date(2025, 7, 20))])
    assert talks["split"] == "test" and texts(talks["targets"]) == ["Talks failed."]
    assert talks["targets_trimmed"] == 1
    # "Results were due." (May) holds both May cuts: never background, never target.
    assert all("Results were due." not in texts(c.background + c.targets) for c in cuts.values())


def test_trimming_drops_the_first_event_not_wholly_inside_and_all_after() -> None:
    events = [
        event("c", 0, "may", "2025-05"),
        event("c", 1, "late may", "2025-05-30"),
        event("c", 2, "the year", "2025"),
        event("c", 3, "early may", "2025-05-03"),
    ]
    assert texts(trim_targets(events, "validation", WINDOWS)[0]) == ["may", "late may"]
    assert trim_targets(events, "validation", WINDOWS)[1] == 2
    assert trim_targets(events, "train", WINDOWS) == ([], 4)
    assert trim_targets(events[:2], "validation", WINDOWS) == (events[:2], 0)


def test_a_cut_with_no_target_in_its_window_builds_nothing() -> None:
    division = divide(VELORIA["events"], date(2025, 5, 20))
    assert cut_sample(VELORIA, Cut("ce-veloria", date(2025, 5, 20), "train"), division, WINDOWS) is None
    built = cut_sample(VELORIA, Cut("ce-veloria", date(2025, 5, 20), "validation"), division, WINDOWS)
    assert built is not None and texts(built.targets) == ["Elections were scheduled."]


def test_timelines_without_a_cut_are_counted_by_reason() -> None:
    undated = timeline("ce-undated", [("a",), ("b",)])
    lonely = timeline("ce-lonely", [("only", "2025-03-01"), ("after", "unknown")])
    ledger = StageLedger("t")
    cuts = plan_cuts([undated, lonely, KESTREL], CONFIG, ledger)
    assert {c.ce_id for c in cuts} == {"ce-kestrel"}
    assert ledger.extra["timelines_without_cut"] == {"no_day_dated_event": 1, "too_little_background": 1}
    assert ledger.extra["timelines_with_cuts"] == 1 and ledger.extra["timelines_in"] == 3
