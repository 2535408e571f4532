"""Each FutureX invariant reports a hand-made tier question that breaks it."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest

from almanac.check.futurex import Sources, check_futurex
from almanac.check.text import question_template

CUT, RESOLVED = date(2025, 5, 31), date(2025, 6, 7)
QUESTIONS = {
    "q1": {
        "answer": "Kessling United",
        "question_start_date": CUT,
        "resolution_date": RESOLVED,
        "split": "test",
        "url": "https://t.example/q1",
    },
    "q0": {
        "answer": "Brennford Rovers",
        "question_start_date": date(2025, 4, 1),
        "resolution_date": date(2025, 4, 9),
        "split": "train",
        "url": "https://t.example/q0",
    },
    "q9": {
        "answer": "Harbor City",
        "question_start_date": date(2025, 6, 1),
        "resolution_date": date(2025, 6, 9),
        "split": "test",
        "url": "https://t.example/q9",
    },
}
NUMERIC = {
    "n1": {
        "answer": "41 seats",
        "article_publish_date": datetime(2025, 6, 7, tzinfo=UTC),
        "url": "https://b.example/1",
    },
    # a numeric reject whose article also gave a released train question
    "n0": {
        "answer": "41 seats",
        "article_publish_date": datetime(2025, 6, 7, tzinfo=UTC),
        "url": "https://t.example/q0",
    },
}
# What foresight_qgen generated (released or not): Level-1 distractors come from the unreleased ones.
CANDIDATES = {
    "q0": {"answer": "Brennford Rovers", "article_publish_date": datetime(2025, 4, 9, tzinfo=UTC)},
    "c0": {"answer": "Ashford Town", "article_publish_date": datetime(2025, 4, 2, tzinfo=UTC)},
    "c5": {"answer": "Rovers", "article_publish_date": datetime(2025, 4, 2, tzinfo=UTC)},
    "c9": {"answer": "Caldmoor", "article_publish_date": datetime(2025, 6, 9, tzinfo=UTC)},
}
SOURCES = Sources(QUESTIONS, {"p1": {"042", "036"}}, NUMERIC, CANDIDATES, frozenset({"2025-06"}))


def level1(distractor: str, source: str, public: date) -> dict[str, Any]:
    cited = [{"question_id": source, "answer": distractor, "resolution_date": public}]
    return row(1, options=[distractor, "Kessling United"], distractor_sources=cited)


def row(level: int, **changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "question_id": f"t{level}",
        "level": level,
        "tier": {1: "basic", 2: "wide_search", 3: "deep_search", 4: "super_agent"}[level],
        "_file_level": level,
        "origin": "openforesight",
        "source_id": "q1",
        "question": "Which club will win the Northern Cup by June 7, 2025?",
        "background": "Question start date: 2025-05-31.",
        "answers": ["Kessling United"],
        "answer_class": "organization",
        "answer_type": "string (team)",
        "options": [],
        "aliases": [],
        "information_cutoff": CUT,
        "resolution_date": RESOLVED,
        "news_source": "tidewaterpost.example",
        "source_day": RESOLVED,
        "value": None,
        "unit": None,
        "sigma": None,
        "distractor_sources": [],
    }
    if level == 1:
        base["options"] = ["Ashford Town", "Kessling United"]
        base["distractor_sources"] = [
            {"question_id": "c0", "answer": "Ashford Town", "resolution_date": date(2025, 4, 2)}
        ]
    if level == 2:
        base.update(
            origin="mirai",
            source_id="p1",
            question="Which actions will USA take towards CHN on June 7, 2025?",
            answers=["036 b", "042 a"],
            options=["010 c", "036 b", "042 a"],
            news_source="gdelt",
        )
    if level == 4:
        base.update(
            origin="numeric",
            source_id="n1",
            question="How many seats will the Alliance win by June 7, 2025? Answer with one number in seats.",
            answers=["41 seats"],
            value=41.0,
            unit="seats",
            sigma=4.1,
            news_source="b.example",
        )
    base.update(changes)
    return base


def failures(rows: list[dict[str, Any]], cap: int = 3, per_template: int = 0) -> dict[str, set[str]]:
    report = check_futurex(rows, SOURCES, cap, max_per_template=per_template)
    return {result.name: set(result.failures) for result in report.violated}


def test_clean_rows_of_every_tier_pass() -> None:
    rows = [row(1), row(2), row(3, question_id="t3", source_id="q9", answers=["Harbor City"],
                                  information_cutoff=date(2025, 6, 1), resolution_date=date(2025, 6, 9)), row(4)]  # fmt: skip
    assert failures(rows) == {}


@pytest.mark.parametrize(
    ("bad", "invariant"),
    [
        (row(1, _file_level=3), "level_matches_file"),
        (row(1, options=["Brennford Rovers", "Ashford", "Caldmoor", "Kessling United"]), "tier_shape"),
        (row(2, answers=["042 a"], options=["010 c", "042 a"]), "tier_shape"),
        (row(3, options=["Kessling United"]), "tier_shape"),
        (row(4, sigma=0.0), "tier_shape"),
        (row(3, information_cutoff=RESOLVED), "cutoff_before_resolution"),
        (row(3, background="Kessling United lead the table."), "answer_not_in_prompt"),
        (row(3, aliases=["Kessling"], question="Will Kessling lift the cup?"), "answer_not_in_prompt"),
        (level1("Caldmoor", "c9", date(2025, 6, 9)), "distractors_public_by_cutoff"),  # public after the cut
        (row(1, options=["Ashford", "Kessling United"]), "distractors_public_by_cutoff"),  # not the cited one
        # A released train question's answer: public, but it can be struck out by elimination.
        (level1("Brennford Rovers", "q0", date(2025, 4, 9)), "distractors_public_by_cutoff"),
        (level1("Brennford Rovers", "q0", date(2025, 4, 9)), "level1_not_by_elimination"),
        # An unreleased candidate's answer, but a part of a released answer ("Brennford Rovers").
        (level1("Rovers", "c5", date(2025, 4, 2)), "level1_not_by_elimination"),
        # The gold itself is another released question's answer: the one option a lookup finds.
        (
            row(1, options=["Ashford Town", "Harbor City"], answers=["Harbor City"]),
            "level1_not_by_elimination",
        ),
        (row(3, source_id="q0", answers=["Brennford Rovers"]), "candidates_not_in_training"),
        (row(4, resolution_date=date(2025, 5, 7)), "candidates_not_in_training"),
        (row(4, source_id="n0"), "candidates_not_in_training"),
        (row(3, answers=["Brennford Rovers"]), "sources_traceable"),
        (row(2, answers=["036 b", "190 x"], options=["010 c", "036 b", "190 x"]), "sources_traceable"),
        (row(4, resolution_date=date(2025, 6, 8)), "sources_traceable"),
    ],
)
def test_each_invariant_catches_its_violation(bad: dict[str, Any], invariant: str) -> None:
    assert invariant in failures([bad])


def test_an_id_twice_and_an_open_answer_among_options() -> None:
    assert "ids_unique" in failures([row(3), row(3, source_id="q9")])
    # The Level-3 question's answer is shown as the Level-1 question's distractor.
    open_question = row(3, question_id="t3", source_id="q9", answers=["Harbor City"],
                        information_cutoff=date(2025, 6, 1), resolution_date=date(2025, 6, 9))  # fmt: skip
    shown = level1("Harbor City", "q9", date(2025, 6, 9))
    assert failures([shown, open_question])["open_answers_not_options"] == {"t1"}


def test_a_source_released_twice_and_a_crowded_day() -> None:
    twice = [row(3), row(3, question_id="t3b")]
    assert failures(twice)["one_tier_per_source"] == {"t3", "t3b"}
    crowded = [row(3, question_id=f"c{n}", source_id=f"q{n}") for n in range(3)]
    assert "source_day_cap" in failures(crowded, cap=2)
    assert "source_day_cap" not in failures(crowded, cap=0)


def test_two_rows_of_one_template_from_one_site_and_day_are_reported() -> None:
    same = [row(3, question_id=f"c{n}", source_id=f"q{n}") for n in range(2)]  # the same question form
    assert failures(same, cap=0, per_template=1)["template_cap"] == {"c0", "c1"}
    assert "template_cap" not in failures(same, cap=0, per_template=2)
    assert question_template("Which actions will FRA take towards NGA on April 1, 2025, as recorded?") == (
        "which actions will X take towards X on # as recorded"
    )
