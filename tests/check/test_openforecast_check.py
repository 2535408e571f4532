"""Each OpenForecast invariant reports a hand-made sample that breaks it."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from almanac.check.openforecast import OptionRules, Windows, check_openforecast
from tests.check.rows import TIMELINE, event, sample

WINDOWS = Windows(date(2025, 4, 30), date(2025, 5, 1), date(2025, 5, 31), date(2025, 6, 1), date(2025, 7, 31))
TIMELINES = {"ce-1": TIMELINE}
DOCUMENTS = {"ce-1": {"doc-1"}}


def run(rows: list[dict[str, Any]], timelines: Any = None) -> Any:
    return check_openforecast(rows, WINDOWS, timelines or TIMELINES, DOCUMENTS)


def failures(report: Any) -> dict[str, set[str]]:
    return {result.name: set(result.failures) for result in report.violated}


def test_clean_samples_of_every_kind_pass() -> None:
    rows = [sample("ltf"), sample("stf"), sample("mcnc", sample_id="mcnc-1"), sample("vqa")]
    report = run(rows)
    assert report.ok, report.lines()
    assert report.invariants["targets_inside_split_window"].checked == 4


def test_train_target_in_the_validation_window() -> None:
    # The old trimming stopped only at the test start, so a May event stayed in a train LTF target.
    leaking = sample("ltf", targets=[TIMELINE[1], TIMELINE[3]])
    assert failures(run([leaking])) == {"targets_inside_split_window": {"ltf-1"}}


def test_month_dated_target_that_reaches_past_the_window() -> None:
    # "2025-04" is inside train (ends April 30); "2025-05" may be May 31, in validation.
    april = event("e5", "Talks continue.", "2025-04", "month")
    may = event("e6", "Talks stall.", "2025-05", "month")
    timelines = {"ce-1": [*TIMELINE, april, may]}
    assert run([sample("ltf", targets=[TIMELINE[1], april])], timelines).ok
    report = run([sample("ltf", targets=[TIMELINE[1], may])], timelines)
    assert failures(report) == {"targets_inside_split_window": {"ltf-1"}}


def test_month_dated_background_event_after_the_cut() -> None:
    # Sorted as April 1 it looked earlier than the April 10 cut; it may be April 30.
    april = event("e5", "Talks continue.", "2025-04", "month")
    report = run([sample("ltf", background=[TIMELINE[0], april])], {"ce-1": [*TIMELINE, april]})
    assert failures(report) == {"background_before_cut": {"ltf-1"}}


def test_background_event_on_the_cut_day() -> None:
    report = run([sample("ltf", background=[TIMELINE[0], TIMELINE[1]], targets=[TIMELINE[2]])])
    assert failures(report) == {"background_before_cut": {"ltf-1"}}


def test_undated_event_is_not_an_interval() -> None:
    undated = event("e7", "Officials meet.", "unknown", "unknown")
    undated["date"] = "unknown"
    report = run([sample("ltf", background=[TIMELINE[0], undated])], {"ce-1": [*TIMELINE, undated]})
    assert set(failures(report)) == {"event_dates_are_intervals", "background_before_cut"}


def test_complex_event_in_two_splits() -> None:
    validation = sample(
        "ltf",
        sample_id="ltf-2",
        split="validation",
        _split_dir="validation",
        cut_date=date(2025, 5, 15),
        background=TIMELINE[:3],
        targets=[TIMELINE[3]],
    )
    assert failures(run([sample("ltf"), validation])) == {"one_split_per_complex_event": {"ce-1"}}


@pytest.mark.parametrize(
    ("changes", "invariant"),
    [
        ({"cut_date": date(2025, 5, 2)}, "cut_in_split_window"),
        ({"split": "validation"}, "split_matches_folder"),
    ],
)
def test_split_and_cut_must_agree(changes: dict[str, Any], invariant: str) -> None:
    assert invariant in failures(run([sample("stf", **changes)]))


def test_event_not_in_the_timeline() -> None:
    invented = event("e9", "Estmark proposes a timber tariff.", "2025-04-03")
    assert failures(run([sample("ltf", background=[invented])])) == {"events_traceable": {"ltf-1"}}
    other_doc = {**TIMELINE[0], "doc_id": "doc-9"}
    assert failures(run([sample("ltf", background=[other_doc])])) == {"events_traceable": {"ltf-1"}}


def test_mcnc_negative_that_really_happened() -> None:
    options = ["Nobody reacts.", TIMELINE[1]["text"], "the council rules against ESTMARK.", "A storm hits."]
    report = run([sample("mcnc", sample_id="mcnc-1", options=options)])
    # An exact copy is also a (100%) fuzzy match.
    assert failures(report) == {
        "negatives_not_true_events": {"mcnc-1"},
        "negatives_not_reworded_true_events": {"mcnc-1"},
    }


def test_mcnc_negative_that_rewords_a_true_event() -> None:
    # "The trade council opens a hearing." reworded: its words all reappear, so the token-set ratio is 100;
    # the exact-text invariant cannot see it.
    options = [
        "Nobody reacts.",
        TIMELINE[1]["text"],
        "A hearing opens at the trade council.",
        "A storm hits.",
    ]
    report = run([sample("mcnc", sample_id="mcnc-1", options=options)])
    assert failures(report) == {"negatives_not_reworded_true_events": {"mcnc-1"}}
    vqa = sample("vqa", label="No", candidate="The trade council opens its hearing.")
    assert "negatives_not_reworded_true_events" in failures(run([vqa]))


def test_mcac_option_dated_before_the_cut() -> None:
    row = sample(
        "mcac",
        sample_id="mcac-1",
        target=TIMELINE[1],
        argument="time",
        question="When will Varnland protest?",
        options=["2025-04-10", "2025-04-03", "17 April 2025", "May 2025"],  # 3 April is before the cut
        answer_index=0,
        answer_label="A",
        answer="2025-04-10",
    )
    assert failures(run([row])) == {"mcac_options_same_side": {"mcac-1"}}
    row["options"] = ["2025-04-10", "2025-04-24", "17 April 2025", "May 2025"]
    assert run([row]).ok


def test_background_event_with_hindsight_wording() -> None:
    told = event("e1", "Estmark proposes a timber tariff, later withdrawn.", "2025-04-02")
    report = run([sample("ltf", background=[told])], {"ce-1": [told, *TIMELINE[1:]]})
    assert failures(report) == {"background_without_hindsight": {"ltf-1"}}
    plain = event(
        "e1", "Estmark proposes a tariff on translated timber.", "2025-04-02"
    )  # "later" inside no word
    assert run([sample("ltf", background=[plain])], {"ce-1": [plain, *TIMELINE[1:]]}).ok


def test_a_shortcut_that_beats_chance_fails_the_check() -> None:
    # 20 MCNC samples whose gold is always the longest option: "longest" scores 100% against 25% chance.
    rows = []
    for number in range(20):
        gold = TIMELINE[1]["text"]  # 29 characters; the negatives are shorter
        options = ["A storm hits.", "Nobody reacts.", "Estmark waits."]
        options.insert(number % 4, gold)
        rows.append(
            sample(
                "mcnc",
                sample_id=f"mcnc-{number}",
                options=options,
                answer_index=number % 4,
                answer_label="ABCD"[number % 4],
            )
        )
    report = run(rows)
    assert set(failures(report)) == {"shortcut_baselines"}
    assert "openforecast/mcnc/longest" in report.invariants["shortcut_baselines"].failures
    assert any("longest" in line and "100.0%" in line for line in report.lines())
    # The same rows on fewer than the minimum sample size are reported, not failed.
    small = check_openforecast(rows[:5], WINDOWS, TIMELINES, DOCUMENTS, rules=OptionRules(min_samples=20))
    assert "shortcut_baselines" not in failures(small)


def test_mcnc_answer_index_must_point_at_the_gold_event() -> None:
    # Index 0 names a negative as gold, and so counts the real gold event among the negatives.
    report = run([sample("mcnc", sample_id="mcnc-1", answer_index=0)])
    assert failures(report) == {
        "options_consistent": {"mcnc-1"},
        "negatives_not_true_events": {"mcnc-1"},
        "negatives_not_reworded_true_events": {"mcnc-1"},
    }


def test_vqa_rows() -> None:
    mcnc = sample("mcnc", sample_id="mcnc-1")
    no = sample("vqa", sample_id="vqa-no", candidate="Estmark withdraws.", label="No")
    assert run([mcnc, no]).ok
    wrong_label = sample("vqa", sample_id="vqa-bad", candidate="Estmark withdraws.", label="Yes")
    assert failures(run([mcnc, wrong_label])) == {"vqa_traceable": {"vqa-bad"}}
    orphan = sample("vqa", sample_id="vqa-orphan", mcnc_sample_id="mcnc-missing")
    assert failures(run([mcnc, orphan])) == {"vqa_traceable": {"vqa-orphan"}}
    true_no = sample("vqa", sample_id="vqa-true", candidate=TIMELINE[2]["text"], label="No")
    assert "negatives_not_true_events" in failures(run([mcnc, true_no]))


def test_windows_out_of_order() -> None:
    windows = Windows(
        date(2025, 5, 10), date(2025, 5, 1), date(2025, 5, 31), date(2025, 6, 1), date(2025, 7, 31)
    )
    report = check_openforecast([sample("stf")], windows, TIMELINES, DOCUMENTS)
    assert "split_windows_ordered" in failures(report)


@pytest.mark.parametrize(
    ("text", "leaks"),
    [
        ("Estmark proposes a timber tariff from 20 May 2025.", True),  # day after the cut (2025-04-10)
        ("Estmark proposes a timber tariff, to be voted on April 12.", True),  # yearless: the event's year
        ("Estmark proposes a tariff to take effect in April 2025.", True),  # the month reaches past the cut
        ("Estmark proposes a timber tariff, first floated on 2025-03-30.", False),
        ("Estmark proposes a tariff, as it did in March 2025.", False),
        ("Estmark may propose a tariff in 2026.", False),  # a bare year or "may" names no date
    ],
)
def test_background_text_naming_a_date_after_the_cut(text: str, leaks: bool) -> None:
    quoting = event("e1", text, "2025-04-02")
    row = sample("ltf", background=[quoting])
    timeline = [quoting, *TIMELINE[1:]]
    found = failures(run([row], {"ce-1": timeline}))
    assert found == ({"background_text_dates_before_cut": {"ltf-1"}} if leaks else {})
