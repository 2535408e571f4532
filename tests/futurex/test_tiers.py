"""The four tiers, the numeric answers Level 4 keeps, and the candidate events' date rules."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from almanac.core.step import Drop
from almanac.futurex.config import TierConfig
from almanac.futurex.events import from_day_pair, from_numeric, from_openforesight
from almanac.futurex.numbers import parse_quantity
from almanac.futurex.tiers import build_tiers, level1_distractors
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


def test_level1_distractors_are_earlier_answers_of_the_same_class() -> None:
    question = event("q", information_cutoff=date(2025, 5, 31))
    pool = [
        question,
        event("early", answers=["Brennford Rovers"], resolution_date=date(2025, 5, 31)),
        event("late", answers=["Harbor City"], resolution_date=date(2025, 6, 1)),  # after the cut-off
        event("person", answers=["Marco Bellandi"], answer_class="name", resolution_date=date(2025, 5, 1)),
        event("same", answers=["kessling united"], resolution_date=date(2025, 5, 1)),  # the answer itself
        event("other", answers=["Ashford Town"], resolution_date=date(2025, 4, 2)),
    ]
    chosen = level1_distractors(question, pool, TierConfig(level1_options=3), 19)
    assert sorted(row["event_id"] for row in chosen) == ["early", "other"]
    assert len(level1_distractors(question, pool, TierConfig(level1_options=2), 19)) == 1


def test_each_origin_goes_to_its_tier() -> None:
    early = event("early", answers=["Brennford Rovers"], resolution_date=date(2025, 5, 1))
    numeric = event(
        "n", origin="numeric", answers=["41 seats"], value=41.0, unit="seats", answer_class="numeric"
    )
    pair = event("m", origin="mirai", answers=["042 a", "036 b"], answer_class="relation")
    single = event("m1", origin="mirai", answers=["042 a"], answer_class="relation")
    events = [event("q"), early, numeric, pair, single]
    rows, ledger = build_tiers(events, TierConfig(level1_share=1.0, level2_options=5), 19, CATALOGUE)
    by_id = {row["event_id"]: row for row in rows}
    assert by_id["q"]["level"] == 1 and sorted(by_id["q"]["options"]) == [
        "Brennford Rovers",
        "Kessling United",
    ]
    assert by_id["q"]["distractor_sources"][0]["question_id"] == "q-early"
    # Nothing resolved before "early": it cannot be single choice, and its answer is q's option, so it
    # cannot be open-ended either.
    assert "early" not in by_id
    assert by_id["m"]["level"] == 2 and len(by_id["m"]["options"]) == 5
    assert {"042 a", "036 b"} <= set(by_id["m"]["options"])
    assert by_id["n"]["level"] == 4 and by_id["n"]["sigma"] == pytest.approx(4.1)
    assert sorted((r.id, r.reason) for r in ledger.rejects) == [
        ("early", "level1_no_distractor"),
        ("m1", "too_few_correct_options"),
    ]
    # Drawn for Level 1 with no distractor and no one's distractor: open-ended.
    rows, ledger = build_tiers([event("q")], TierConfig(level1_share=1.0), 19, CATALOGUE)
    assert rows[0]["level"] == 3 and ledger.extra["level1_without_distractors"] == 1
    # Level 3 only: the share 0 sends every OpenForesight question to the open-ended tier, and no
    # open-ended answer becomes another question's option.
    rows, _ = build_tiers([event("q"), early], TierConfig(level1_share=0.0), 19, CATALOGUE)
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
    row = from_numeric(numeric, "answer_class_numeric")
    assert not isinstance(row, Drop)
    assert (row["information_cutoff"], row["resolution_date"]) == (date(2025, 6, 6), date(2025, 6, 7))
    assert (row["value"], row["unit"]) == (41.0, "seats") and row["question"].endswith("in seats.")
    early = from_numeric({**numeric, "resolution_date_text": "2025-06-01"}, "answer_class_numeric")
    assert isinstance(early, Drop) and early.reason == "resolution_before_article"
    vague = from_numeric({**numeric, "answer": "about a third"}, "answer_class_numeric")
    assert isinstance(vague, Drop) and vague.reason == "numeric_unparseable"
    leak = from_openforesight({"cross_question_leak": True})
    assert isinstance(leak, Drop) and leak.reason == "cross_question_leak"
    pair = from_day_pair(
        {"pair_id": "p", "date": date(2025, 5, 2), "subject": "USA", "object": "CHN", "relations": ["042"]},
        {"042": "Make a visit"},
    )
    assert not isinstance(pair, Drop)
    assert pair["answers"] == ["042 Make a visit"] and pair["information_cutoff"] == date(2025, 5, 1)
