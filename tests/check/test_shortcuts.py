"""Each no-knowledge baseline on a hand-built task set, expected accuracies worked out by hand."""

from __future__ import annotations

from datetime import date

import pytest

from almanac.check.choices import futurex_tasks, openforecast_tasks
from almanac.check.shortcuts import (
    ChoiceTask,
    audit,
    earliest_date,
    first_position,
    hindsight_in,
    hindsight_words,
    latest_date,
    longest_option,
    majority_position,
    most_like_background,
    most_similar_option,
    only_dated_after_cut,
    option_date,
    title_words,
)


def mc(options: tuple[str, ...], gold: int, **changes: object) -> ChoiceTask:
    return ChoiceTask(item_id=f"t{gold}{options[0]}", group="g", options=options, gold=gold, **changes)  # type: ignore[arg-type]


def test_most_similar_option_finds_the_gold_of_one_word_swaps() -> None:
    # The gold shares its words with each swap; the swaps share fewer words with one another.
    swaps = mc(("The ship is lifted", "The crane is lifted", "The ship is sunk", "The boat is lifted"), 0)
    unrelated = mc(("Talks resume", "A storm hits the coast", "Prices rise", "The court adjourns"), 2)
    assert most_similar_option([swaps]) == [1.0]
    assert most_similar_option([unrelated]) == [0.0]


def test_longest_option_splits_ties() -> None:
    tasks = [
        mc(("aaaa", "bb", "cc", "dd"), 0),
        mc(("aaaa", "bbbb", "cc", "dd"), 1),
        mc(("a", "bb", "c", "d"), 0),
    ]
    assert longest_option(tasks) == [1.0, 0.5, 0.0]


def test_positions() -> None:
    tasks = [mc(("a", "b", "c", "d"), gold) for gold in (0, 2, 2, 3)]
    assert first_position(tasks) == [1.0, 0.0, 0.0, 0.0]
    assert majority_position(tasks) == [0.0, 1.0, 1.0, 0.0]  # C holds the gold twice


def test_only_dated_after_cut_fires_only_when_one_option_is_late() -> None:
    cut = date(2025, 4, 10)
    late_gold = mc(("2025-04-12", "2025-03-01", "March 2025", "2 April 2025"), 0, cut=cut)
    all_late = mc(("2025-04-12", "2025-04-20", "May 2025", "20 April 2025"), 0, cut=cut)
    not_dates = mc(("Estmark", "Varnland", "the council", "2025-04-12"), 3, cut=cut)
    assert only_dated_after_cut([late_gold, all_late, not_dates]) == [1.0, None, None]
    assert option_date("March 3, 2025") == (date(2025, 3, 3), date(2025, 3, 3))
    assert option_date("the capital") is None


def test_title_words_abstains_without_overlap() -> None:
    title = "Harwell Bay chemical spill"
    named = mc(
        ("Spill reaches Harwell beaches", "Talks resume", "Prices rise", "Court adjourns"), 0, title=title
    )
    wrong = mc(("Talks resume", "Harwell votes", "Prices rise", "Court adjourns"), 0, title=title)
    blind = mc(("Talks resume", "Prices rise", "A storm", "Court adjourns"), 1, title=title)
    assert title_words([named, wrong, blind]) == [1.0, 0.0, None]


def test_background_and_hindsight_words() -> None:
    background = ("The Orsa Meridian runs aground off Harwell.", "Salvage begins, later halted by storms.")
    task = mc(
        ("Storms halt salvage", "The Orsa Meridian is refloated", "Talks resume", "Prices rise"),
        0,
        background=background,
    )
    assert hindsight_words([task]) == [1.0]  # "halted", "storms", "salvage" come from the hindsight event
    assert most_like_background([task]) == [0.5]  # "salvage"/"storms" and "orsa"/"meridian": two each, a tie
    assert hindsight_in("Translated at a later date") == "later"
    assert hindsight_in("A translator arrives") is None
    assert hindsight_words([mc(("a", "b", "c", "d"), 0, background=("Plain.",))]) == [None]


def test_yes_no_forms_and_chance() -> None:
    rows = [
        {
            "sample_id": f"v{i}",
            "task": "vqa",
            "ce_title": "Timber tariff dispute",
            "label": label,
            "candidate": candidate,
            "background": [{"text": "Estmark proposes a timber tariff."}],
            "cut_date": date(2025, 4, 10),
        }
        for i, (label, candidate) in enumerate(
            [
                ("Yes", "Varnland answers the timber tariff"),
                ("Yes", "Estmark raises the tariff"),
                ("No", "A storm hits"),
                ("No", "Prices rise"),
            ]
        )
    ]
    tasks = openforecast_tasks(rows)
    assert [task.gold for task in tasks] == [0, 0, 1, 1]
    assert title_words(tasks) == [1.0, 1.0, 1.0, 1.0]  # only the Yes candidates name the tariff
    assert first_position(tasks) == [1.0, 1.0, 0.0, 0.0]  # always Yes: one half
    scores = {score.baseline: score for score in audit(tasks, 0.1, 4).scores}
    assert scores["title_words"].accuracy == 1.0 and scores["title_words"].chance == 0.5
    assert scores["title_words"].verdict(0.1, 4) is not None
    assert scores["always_first"].verdict(0.1, 4) is None


def test_audit_pools_each_group_and_respects_the_minimum() -> None:
    tasks = [mc(("long gold option", "b", "c", "d"), 0) for _ in range(3)]
    (longest,) = [score for score in audit(tasks, 0.1, 3).scores if score.baseline == "longest"]
    assert (longest.n, longest.accuracy, longest.chance) == (3, 1.0, 0.25)
    assert longest.verdict(0.1, 3) is not None
    assert longest.verdict(0.1, 4) is None  # n 3 below a minimum of 4
    assert longest.verdict(0.75, 3) is None  # 100% is not above 25% + 75%


@pytest.mark.parametrize(("level", "answers", "kept"), [(1, ["Estmark"], 1), (2, ["Estmark", "Varnland"], 0)])
def test_futurex_level_one_only(level: int, answers: list[str], kept: int) -> None:
    row = {
        "question_id": "q",
        "level": level,
        "options": ["Estmark", "Varnland", "Norvale"],
        "answers": answers,
        "question": "Who will win?",
        "background": "",
        "information_cutoff": date(2025, 4, 1),
    }
    assert len(futurex_tasks([row])) == kept


def test_earliest_and_latest_date() -> None:
    # Gold on the cut day and every other option later: "earliest" always wins, "latest" never.
    gold_first = mc(("2025-04-10", "2025-04-17", "24 April 2025", "May 2025"), 0)
    middle = mc(("2025-04-17", "2025-04-10", "24 April 2025", "May 2025"), 0)
    words = mc(("Estmark", "2025-04-10", "2025-04-17", "May 2025"), 0)
    assert earliest_date([gold_first, middle, words]) == [1.0, 0.0, None]
    assert latest_date([gold_first, middle, words]) == [0.0, 0.0, None]
