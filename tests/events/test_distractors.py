"""MCNC negatives from other timelines, balanced gold positions, MCAC dates on the gold's side."""

from __future__ import annotations

import random
from collections import Counter
from datetime import date
from typing import Any

import pytest

from almanac.check.shortcuts import content_words
from almanac.core.hindsight import HINDSIGHT_WORDS
from almanac.events.cuts import NegativesConfig, SplitWindows
from almanac.events.distractors import (
    _best_set,
    _extreme,
    balanced_positions,
    choose_negatives,
    donor_pool,
    hardest_negative,
    names_in,
    placed_options,
    rewrite_names,
    same_side_times,
    surface_gaps,
)
from almanac.events.hindsight import hindsight_phrase
from almanac.events.vqa_draw import VqaPair, paired_yes

WINDOWS = SplitWindows("2025-03-31", "2025-04-01", "2025-04-30", "2025-05-01", "2025-06-30")


def event(text: str, when: str) -> dict[str, Any]:
    return {"text": text, "date": when, "date_precision": "day"}


def timeline(ce_id: str, title: str, topic: str, *events: dict[str, Any]) -> dict[str, Any]:
    return {"ce_id": ce_id, "title": title, "topic": topic, "events": list(events)}


HOME = timeline(
    "home",
    "Harwell Bay chemical spill",
    "Disasters",
    event("The Orsa Meridian runs aground off Harwell Bay.", "2025-05-02"),
    event("Salvage crews start removing containers from the Orsa Meridian.", "2025-05-09"),
    event("Volunteers collect pellets from the beaches of Harwell Bay.", "2025-05-20"),
)
FLOOD = timeline(
    "flood",
    "Veloria River floods",
    "Disasters",
    event("The river overtops the levee at Marrowick during the night.", "2025-05-10"),
    event(
        "Salvage crews start removing containers from the Orsa Meridian wreck.", "2025-05-11"
    ),  # reworded true
    event("Army units build sandbag walls along the Veloria River banks.", "2025-05-12"),
)
MERGER = timeline(
    "merger",
    "Pendry Airlines merger",
    "Business",
    event("Shareholders of Pendry Airlines approve the merger at a meeting.", "2025-05-13"),
)
TRAIN_STORY = timeline(
    "old",
    "Old story",
    "Disasters",
    event("Firefighters contain the blaze near Kessling after two days.", "2025-03-10"),
)
SPLITS = {"home": "test", "flood": "test", "merger": "test", "old": "train"}
# Gaps left open here: these tests are about the other rules (the gap rule has its own tests below).
OPEN = {"max_title_gap": 99, "max_background_gap": 99}
CONFIG = NegativesConfig(fuzzy_threshold=80.0, max_length_ratio=2.0, **OPEN)


def negatives(seed: int = 13, config: NegativesConfig = CONFIG) -> tuple[list[str], int]:
    pool = donor_pool([HOME, FLOOD, MERGER, TRAIN_STORY], SPLITS, WINDOWS)
    target = HOME["events"][1]
    return choose_negatives(HOME, date(2025, 5, 9), target, pool["test"], config, seed, "mcnc-1")


def test_negatives_are_real_events_of_other_timelines_of_the_split() -> None:
    chosen, refused = negatives()
    assert len(chosen) == 3 and refused == 1  # the reworded salvage event is refused as true here
    own = {str(e["text"]) for e in HOME["events"]}
    assert not own & set(chosen)
    assert not any("Salvage" in text for text in chosen)
    assert negatives() == negatives()  # deterministic for one seed


def test_donors_come_from_the_same_or_an_earlier_split_only() -> None:
    pool = donor_pool([HOME, FLOOD, MERGER, TRAIN_STORY], SPLITS, WINDOWS)
    # A test story's event never reaches a train sample; a train story's (past) event may reach a test one.
    assert {donor.ce_id for donor in pool["train"]} == {"old"}
    assert {donor.ce_id for donor in pool["test"]} == {"old", "home", "flood", "merger"}


def test_same_category_first_one_per_donor_and_names_rewritten() -> None:
    chosen, _ = negatives()
    # Names this story does not know become known names of the same kind: the place Kessling becomes
    # Harwell Bay, the company Pendry Airlines the ship's owner-name Orsa Meridian, the army units and
    # the Veloria River too (all tagged by spaCy); Marrowick is not tagged as a place and stays.
    # Ranked: the river (flood, 59 characters), the fire (old, 63), the sandbag walls (flood, 68), the
    # shareholders (merger, 62); the gold has 63. One negative per donor story: {river or sandbags,
    # fire, shareholders}. The seeded draw for this sample wants 0 negatives shorter than the gold:
    # with the river 2 are shorter (59, 62), with the sandbag walls 1 (62), so the sandbag walls go in.
    assert chosen == [
        "Firefighters contain the blaze near Harwell Bay after two days.",
        "Orsa Meridian units build sandbag walls along the Harwell Bay banks.",
        "Shareholders of Orsa Meridian approve the merger at a meeting.",
    ]
    without = negatives(config=NegativesConfig(80.0, 2.0, rewrite_names=False, **OPEN))[0]
    # Unrewritten, no donor shares a background word (the gold shares orsa, meridian): any three would
    # leave the gold alone with the most, so none is given (the sample is rejected upstream).
    assert without == []


def test_names_and_their_rewriting() -> None:
    model = NegativesConfig().ner_model
    assert names_in("The union for Skylark Regional's pilots meets in May.", model) == [
        ("organisation", "Skylark Regional")
    ]
    ours = {"place": ["Harwell Bay"]}
    assert rewrite_names("Protesters marched through Veloria.", ours, model) == (
        "Protesters marched through Harwell Bay."
    )
    assert rewrite_names("The river rises.", ours, model) == "The river rises."


def test_too_few_donors_gives_fewer_negatives() -> None:
    pool = donor_pool([HOME, MERGER], {"home": "test", "merger": "test"}, WINDOWS)
    chosen, _ = choose_negatives(HOME, date(2025, 5, 9), HOME["events"][1], pool["test"], CONFIG, 13, "s")
    assert len(chosen) == 1


def test_positions_are_balanced_and_the_gold_lands_there() -> None:
    ids = [f"s{i}" for i in range(10)]
    positions = balanced_positions(ids, 4, 13)
    assert sorted(Counter(positions.values()).values()) == [2, 2, 3, 3]
    assert placed_options("gold", ["a", "b", "c"], 2, 13, "s1")[2] == "gold"


def test_mcac_dates_stay_on_the_gold_side_of_the_cut() -> None:
    cut = date(2025, 5, 9)
    kept = same_side_times("2025-05-09", ["2025-05-02", "2025-05-20"], cut)
    # 2 May is before the cut and goes; the gold moved a week (16 May) and two weeks (23 May) fill in.
    assert kept == ["2025-05-20", "2025-05-16", "2025-05-23"]
    assert same_side_times("9 May 2025", [], cut)[0] == "16 May 2025"


def test_hindsight_phrases() -> None:
    assert (
        hindsight_phrase("The mayor, who would go on to resign, speaks.", HINDSIGHT_WORDS) == "would go on to"
    )
    assert hindsight_phrase("A translator arrives later that week.", HINDSIGHT_WORDS) == "later"
    assert hindsight_phrase("A translator arrives.", HINDSIGHT_WORDS) is None


def test_mcac_dates_fall_on_both_sides_of_the_gold_when_they_can() -> None:
    cut = date(2025, 5, 1)
    counts = Counter(
        sum(value < "2025-05-20" for value in same_side_times("2025-05-20", [], cut, 3, random.Random(n)))
        for n in range(40)
    )
    # Candidates: 13 and 6 May before the gold, 27 May, 3, 10 and 17 June after: 0, 1 or 2 dates before.
    assert set(counts) == {0, 1, 2}
    assert all(
        day >= "2025-05-01"
        for n in range(40)
        for day in same_side_times("2025-05-20", [], cut, 3, random.Random(n))
    )


def test_surface_gaps_count_title_and_background_words_as_the_check_does() -> None:
    gold = "Salvage crews start removing containers from the Orsa Meridian."
    title = content_words("Harwell Bay chemical spill")  # harwell bay chemical spill
    told = content_words(
        "The Orsa Meridian runs aground off Harwell Bay."
    )  # orsa meridian runs aground off harwell bay
    # The gold shares no title word and two background words (orsa, meridian).
    shareholders = "Shareholders of Orsa Meridian approve the merger at a meeting."  # 0 title, 2 background
    firefighters = "Firefighters contain the blaze near Harwell Bay after two days."  # 2 title, 2 background
    river = "The river overtops the levee at Marrowick during the night."  # 0 title, 0 background
    assert surface_gaps(shareholders, gold, title, told) == (0, 0)
    assert surface_gaps(firefighters, gold, title, told) == (2, 0)
    assert surface_gaps(river, gold, title, told) == (0, 2)


def test_a_donor_that_names_the_story_less_or_more_than_the_gold_is_never_used() -> None:
    pool = donor_pool([HOME, FLOOD, MERGER, TRAIN_STORY], SPLITS, WINDOWS)
    gold = HOME["events"][1]  # 0 title words, 2 background words (above)
    # Gaps 0 (the default): after rewriting, only the merger event (Orsa Meridian for Pendry Airlines)
    # matches the gold on both counts; the river (0 background words), the sandbag walls (0) and the fire
    # near Harwell Bay (2 title words) would each give the gold away, so the sample gets one negative
    # (and is rejected too_few_negatives upstream) instead of three with a tell.
    strict = NegativesConfig(fuzzy_threshold=80.0, max_length_ratio=2.0)
    chosen, _ = choose_negatives(HOME, date(2025, 5, 9), gold, pool["test"], strict, 13, "mcnc-1")
    assert chosen == ["Shareholders of Orsa Meridian approve the merger at a meeting."]
    # A title gap of 2 admits the fire, and the same category ranks it first.
    loose = NegativesConfig(fuzzy_threshold=80.0, max_length_ratio=2.0, max_title_gap=2)
    chosen, _ = choose_negatives(HOME, date(2025, 5, 9), gold, pool["test"], loose, 13, "mcnc-1")
    assert chosen == [
        "Firefighters contain the blaze near Harwell Bay after two days.",
        "Shareholders of Orsa Meridian approve the merger at a meeting.",
    ]
    with pytest.raises(ValueError, match="max_title_gap"):
        NegativesConfig(max_title_gap=-1)


def test_vqa_no_candidate_matches_the_gold_in_background_words_then_in_length() -> None:
    gold = "Crews repair the dam at Orlen."  # 30 characters; background words dam, orlen
    background = ["The dam at Orlen cracks."]
    same_length = "Workers walk out at the mills."  # 30 characters, no background word: gap 2
    near_length = "Police arrest a man at Orlen dam."  # 33 characters, dam and orlen: gap 0
    assert hardest_negative(gold, [same_length, near_length], "", background) == near_length
    # With equal gaps, the nearest length in characters wins, exactly (not rounded to a tenth):
    # 27 characters (|ln 27/30| = 0.105) against 34 (|ln 34/30| = 0.125).
    shorter, longer = "Police arrest Orlen dam men", "Police arrest the Orlen dam guard."
    assert (len(shorter), len(longer)) == (27, 34)
    assert hardest_negative(gold, [longer, shorter], "", background) == shorter


def test_the_gold_is_never_alone_with_the_most_or_the_fewest_title_words() -> None:
    assert _extreme(2, [1, 1, 1]) and _extreme(0, [1, 1, 1])
    assert not _extreme(1, [1, 0, 2]) and not _extreme(1, [1, 1, 1])
    gold = "Lusk water vote held"  # 20 characters; lusk and water are title words: 2
    words = ({"lusk", "water"}, set())  # title words, background words (none: every count is 0)
    usable = [
        ("d1", "The Lusk council meets again today"),  # 1 title word, 34 characters
        ("d2", "Water bills rise across the whole region"),  # 1, 40
        ("d3", "A Lusk mayor resigns after a long dispute"),  # 1, 41
        ("d4", "Lusk water pipes are replaced in spring"),  # 2, 39
    ]
    # The three best-ranked leave the gold alone with the most title words (2 against 1, 1, 1); of the
    # sets with the fourth, every negative is longer than the gold (0 shorter, as wanted), and the
    # best-ranked is (0, 1, 3).
    assert _best_set(usable, gold, words, 0, 3) == [usable[0][1], usable[1][1], usable[3][1]]
    # With the first two from one donor timeline, the set with distinct donors (0, 2, 3) comes first.
    same_donor = [("d1", usable[0][1]), ("d1", usable[1][1]), *usable[2:]]
    assert _best_set(same_donor, gold, words, 0, 3) == [usable[0][1], usable[2][1], usable[3][1]]
    assert _best_set(usable[:2], gold, words, 0, 3) == [usable[0][1], usable[1][1]]  # too few: all


def test_vqa_yes_no_is_a_matched_pair_draw() -> None:
    a = VqaPair("a", False, gold_like=60.0, no_like=40.0, gold_chars=50, no_chars=50)
    b = VqaPair("b", False, gold_like=50.0, no_like=45.0, gold_chars=50, no_chars=50)
    # Order by likeness sum: b (95), a (100). b Yes and a No differ by 50 - 40 = 10 points (cost 10/5 = 2);
    # a Yes and b No by 60 - 45 = 15 (cost 3): b is Yes.
    assert paired_yes([a, b], 13) == {"b": True, "a": False}
    # b's gold twice as long as a's "No" candidate: log 2 / 0.2 = 3.47 more, so the other way (cost 3) wins.
    long_b = VqaPair("b", False, gold_like=50.0, no_like=45.0, gold_chars=100, no_chars=50)
    assert paired_yes([a, long_b], 13) == {"b": False, "a": True}
    # Every pair gives one Yes and one No, whatever the seed.
    items = [VqaPair(f"s{i}", i % 2 == 0, 40.0 + i, 30.0 + i, 60, 60) for i in range(6)]
    assert all(sum(paired_yes(items, seed).values()) == 3 for seed in range(5))
