"""The four tiers, the numeric answers Level 4 keeps, and the candidate events' date rules."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from almanac.core.step import Drop
from almanac.crossstyle.near_duplicates import MARK_COLUMN, CrossStyleConfig, ReleasedRow, TrainingIndex
from almanac.futurex.config import TierConfig
from almanac.futurex.events import (
    CandidateRules,
    collect_events,
    event_id,
    from_day_pair,
    from_numeric,
    from_openforesight,
)
from almanac.futurex.numbers import parse_quantity
from almanac.futurex.tiers import answer_words, build_tiers, level1_distractors, overlaps
from tests.futurex.events import event

CATALOGUE = [f"0{n}0 relation {n}" for n in range(1, 10)]


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ("41 seats", (41.0, "seats")),
        ("$2.5 billion", (2.5e9, "USD")),
        ("3.4%", (3.4, "percent")),
        ("1,250", (1250.0, "count")),
        ("12 percent", (12.0, "percent")),
        ("10-12 seats", None),
        ("between 3 and 4", None),
        ("Kessling United", None),
    ],
)
def test_numeric_answers_become_a_value_and_a_unit(answer: str, expected: tuple[float, str] | None) -> None:
    assert parse_quantity(answer) == expected


def candidate(
    question_id: str, answer: str, public: date, answer_class: str = "organization"
) -> dict[str, Any]:
    return {"question_id": question_id, "answer": answer, "answer_class": answer_class, "public_date": public}


POOL = [
    candidate("c-early", "Ashford Town", date(2025, 5, 1)),
    candidate("c-late", "Caldmoor", date(2025, 6, 1)),  # public after the cut-off
    candidate("c-person", "Marco Bellandi", date(2025, 5, 1), "name"),  # another class
    candidate("c-gold", "kessling united", date(2025, 5, 1)),  # the gold itself
    candidate("c-part", "Rovers", date(2025, 5, 1)),  # part of a released answer: elimination finds it
    candidate("c-twin", "Ashford Town", date(2025, 5, 2)),  # the same name twice is one option
    candidate("c-other", "Dunmore Athletic", date(2025, 4, 2)),
]


def test_level1_distractors_are_unreleased_names_of_the_same_class_public_by_the_cutoff() -> None:
    question = event("q", information_cutoff=date(2025, 5, 31))
    released = [answer_words("Brennford Rovers")]
    chosen = level1_distractors(question, POOL, released, TierConfig(level1_options=3), 19)
    assert sorted(row["answer"] for row in chosen) == ["Ashford Town", "Dunmore Athletic"]
    assert len(level1_distractors(question, POOL, released, TierConfig(level1_options=2), 19)) == 1
    assert overlaps(answer_words("Rovers"), answer_words("Brennford Rovers"))
    assert not overlaps(answer_words("Rovers"), answer_words("Brennford United"))


def test_each_origin_goes_to_its_tier() -> None:
    numeric = event(
        "n", origin="numeric", answers=["41 seats"], value=41.0, unit="seats", answer_class="numeric"
    )
    pair = event("m", origin="mirai", answers=["042 a", "036 b"], answer_class="relation")
    single = event("m1", origin="mirai", answers=["042 a"], answer_class="relation")
    # "g": its gold is the answer of another released question (q-x), so options would single it out.
    gold_released = event("g", source_id="q-g", answers=["Brennford Rovers"])
    released = {"q-q": "Kessling United", "q-g": "Brennford Rovers", "q-x": "Brennford Rovers"}
    events = [event("q"), gold_released, numeric, pair, single]
    pool = [candidate("c0", "Ashford Town", date(2025, 5, 1))]
    config = TierConfig(level1_share=1.0, level2_options=5)
    rows, ledger = build_tiers(events, config, 19, CATALOGUE, pool, released)
    by_id = {row["event_id"]: row for row in rows}
    assert by_id["q"]["level"] == 1 and sorted(by_id["q"]["options"]) == ["Ashford Town", "Kessling United"]
    assert by_id["q"]["distractor_sources"] == [
        {"question_id": "c0", "answer": "Ashford Town", "resolution_date": date(2025, 5, 1)}
    ]
    assert by_id["g"]["level"] == 3 and ledger.extra["level1_gold_is_released_answer"] == 1
    assert by_id["m"]["level"] == 2 and len(by_id["m"]["options"]) == 5
    assert {"042 a", "036 b"} <= set(by_id["m"]["options"])
    assert by_id["n"]["level"] == 4 and by_id["n"]["sigma"] == pytest.approx(4.1)
    assert sorted((r.id, r.reason) for r in ledger.rejects) == [("m1", "too_few_correct_options")]
    # Drawn for Level 1 with no distractor in the pool: open-ended.
    rows, ledger = build_tiers([event("q")], TierConfig(level1_share=1.0), 19, CATALOGUE)
    assert rows[0]["level"] == 3 and ledger.extra["level1_without_distractors"] == 1
    # Level 3 only: the share 0 sends every OpenForesight question to the open-ended tier.
    rows, _ = build_tiers([event("q"), gold_released], TierConfig(level1_share=0.0), 19, CATALOGUE, pool)
    assert {row["level"] for row in rows} == {3}


def test_level2_options_are_stable_and_shuffled() -> None:
    pair = event("m", origin="mirai", answers=["042 a", "036 b"], answer_class="relation")
    first, _ = build_tiers([pair], TierConfig(), 19, CATALOGUE)
    again, _ = build_tiers([pair], TierConfig(), 19, CATALOGUE)
    assert first[0]["options"] == again[0]["options"]
    positions = {
        tuple(sorted(rows[0]["options"].index(a) for a in ("042 a", "036 b")))
        for seed in range(20)
        for rows in [build_tiers([pair], TierConfig(), seed, CATALOGUE)[0]]
    }
    assert len(positions) > 1  # the answers do not always come first


def test_candidate_dates_are_leak_free() -> None:
    published = datetime(2025, 6, 7, tzinfo=UTC)
    numeric = {
        "question_id": "n1",
        "question_title": "How many seats will the Alliance win by June 7, 2025?",
        "background": "Question start date: 2025-06-20.",
        "answer": "41 seats",
        "answer_type": "numeric (integer)",
        "question_start_date_text": "2025-06-20",  # after the article: clamped to the day before it
        "resolution_date_text": "2025-06-30",
        "article_publish_date": published,
        "url": "https://a.example/1",
        "news_source": "a.example",
    }
    rules = CandidateRules(test_months=frozenset({"2025-06"}))
    row = from_numeric(numeric, "answer_class_numeric", rules)
    assert not isinstance(row, Drop)
    assert (row["information_cutoff"], row["resolution_date"]) == (date(2025, 6, 6), date(2025, 6, 7))
    assert (row["value"], row["unit"]) == (41.0, "seats") and row["question"].endswith("in seats.")
    early = from_numeric({**numeric, "resolution_date_text": "2025-06-01"}, "answer_class_numeric", rules)
    assert isinstance(early, Drop) and early.reason == "resolution_before_article"
    vague = from_numeric({**numeric, "answer": "about a third"}, "answer_class_numeric", rules)
    assert isinstance(vague, Drop) and vague.reason == "numeric_unparseable"
    leak = from_openforesight({"split": "test", "cross_question_leak": True})
    assert isinstance(leak, Drop) and leak.reason == "cross_question_leak"
    pair = from_day_pair(
        {"pair_id": "p", "date": date(2025, 5, 2), "subject": "USA", "object": "CHN", "relations": ["042"]},
        {"042": "Make a visit"},
    )
    assert not isinstance(pair, Drop)
    assert pair["answers"] == ["042 Make a visit"] and pair["information_cutoff"] == date(2025, 5, 1)


def test_candidates_come_only_from_material_no_training_split_holds() -> None:
    for split in ("train", "validation"):
        dropped = from_openforesight({**event("q"), "split": split})
        assert isinstance(dropped, Drop) and dropped.reason == "in_training_split"
    numeric = {
        "question_id": "n1",
        "question_title": "How many seats will the Alliance win by June 7, 2025?",
        "background": "",
        "answer": "41 seats",
        "answer_type": "numeric (integer)",
        "article_publish_date": datetime(2025, 6, 7, tzinfo=UTC),
        "url": "https://a.example/1",
        "news_source": "a.example",
    }
    reasons = {
        name: getattr(from_numeric(numeric, "answer_class_numeric", rules), "reason", "kept")
        for name, rules in {
            "test month": CandidateRules(test_months=frozenset({"2025-06"})),
            "train month": CandidateRules(test_months=frozenset({"2025-07"})),
            "other outlet": CandidateRules(frozenset({"2025-06"}), test_sources=frozenset({"b.example"})),
            "train article": CandidateRules(
                frozenset({"2025-06"}), training_urls=frozenset({"https://a.example/1"})
            ),
        }.items()
    }
    assert reasons == {
        "test month": "kept",
        "train month": "not_test_period",
        "other outlet": "not_test_period",
        "train article": "article_in_training_split",
    }


def test_a_candidate_repeating_another_styles_training_row_is_excluded_or_marked() -> None:
    question = {
        "question_id": "q1",
        "split": "test",
        "question_title": "Which club will win the Northern Cup by June 7, 2025?",
        "background": "",
        "answer": "Kessling United",
        "answer_type": "string (team)",
        "answer_class": "organization",
        "question_start_date": date(2025, 5, 31),
        "resolution_date": date(2025, 6, 7),
        "news_source": "t.example",
        "url": "https://t.example/1",
    }
    other = {
        **question,
        "question_id": "q2",
        "question_title": "Who will chair the Harbour Board by June 9, 2025?",
    }
    # An OpenForecast train sample asking the same thing (a date and a word apart).
    training = [
        ReleasedRow("openforecast", "train", "s1", "Which club will win the Northern Cup on June 8, 2025?")
    ]
    index = TrainingIndex(training, CrossStyleConfig())
    rows, ledger = collect_events([question, other], [], [], {}, CandidateRules(training=index))
    assert [row["source_id"] for row in rows] == ["q2"] and rows[0][MARK_COLUMN] is None
    assert (ledger.items_in, ledger.items_out, len(ledger.rejects)) == (2, 1, 1)  # counted in once
    rejected = [(r.id, r.source, r.reason) for r in ledger.rejects]
    assert rejected == [(event_id("openforesight", "q1"), "openforesight:q1", "cross_style_duplicate")]
    assert "openforecast train s1" in ledger.rejects[0].detail
    rows, ledger = collect_events(
        [question, other], [], [], {}, CandidateRules(training=index, action="mark")
    )
    marked = {row["source_id"]: row[MARK_COLUMN] for row in rows}
    assert marked["q2"] is None and "openforecast train s1" in str(marked["q1"])
    assert ledger.extra["cross_style_marked"] == 1
    assert (ledger.items_in, ledger.items_out) == (2, 2)
