"""Each MIRAI invariant reports a hand-made query that breaks it."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from almanac.check.mirai import Thresholds, check_mirai, recorded_from_quads

DAY = date(2025, 5, 12)
A_URLS = [f"https://a.example/{n}" for n in range(5)]
QUADS = [
    {
        "date": DAY,
        "subject": "USA",
        "relation": "042",
        "object": "CHN",
        "urls": A_URLS,
        "num_daily_mentions": 120,
    },
    {
        "date": DAY,
        "subject": "USA",
        "relation": "036",
        "object": "CHN",
        "urls": ["https://b.example/2"],
        "num_daily_mentions": 60,
    },
    {
        "date": DAY + timedelta(days=1),
        "subject": "USA",
        "relation": "190",
        "object": "CHN",
        "urls": [],
        "num_daily_mentions": 70,
    },
]
# Cleaned text survived for the five sources of 042 and for 036's one.
TEXTS = frozenset([*A_URLS, "https://b.example/2"])


def query(**changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "query_id": "m1",
        "month": "2025-05",
        "date": DAY,
        "subject": "USA",
        "object": "CHN",
        "answers": ["036", "042"],
        "answer_roots": ["03", "04"],
        "recipe": "paper",
        "test_relations": ["042"],
        "urls": [*A_URLS, "https://b.example/2"],
        "horizons": [{"days": days, "last_history_date": DAY - timedelta(days=days)} for days in (1, 7)],
        "_file_month": "2025-05",
    }
    row.update(changes)
    return row


def failures(rows: list[dict[str, Any]], texts: frozenset[str] = TEXTS) -> dict[str, set[str]]:
    report = check_mirai(rows, recorded_from_quads(QUADS), ["2025-04", "2025-05"], "all", Thresholds(), texts)
    return {result.name: set(result.failures) for result in report.violated}


def test_a_clean_query_passes() -> None:
    assert failures([query()]) == {}


@pytest.mark.parametrize(
    ("changes", "invariant"),
    [
        ({"_file_month": "2025-04"}, "date_in_month"),
        ({"month": "2025-06", "_file_month": "2025-06", "date": date(2025, 6, 12)}, "month_in_scope"),
        ({"answers": ["036", "042", "190"], "answer_roots": ["03", "04", "19"]}, "answers_recorded_that_day"),
        ({"answers": ["042"], "answer_roots": ["04"]}, "answers_complete"),
        ({"answer_roots": ["04"]}, "answer_roots_consistent"),
        ({"horizons": [{"days": 0, "last_history_date": DAY}]}, "history_before_query"),
        ({"urls": ["https://c.example/3"]}, "urls_traceable"),
        # 036 has 60 mentions (< 100) and one source: not a test event under paper
        ({"test_relations": ["036"]}, "test_thresholds_met"),
        ({"test_relations": []}, "test_thresholds_met"),
        ({"test_relations": ["042", "190"]}, "test_thresholds_met"),  # 190 is no answer of the day
        ({"recipe": "strict"}, "test_thresholds_met"),
    ],
)
def test_each_broken_query_is_reported(changes: dict[str, Any], invariant: str) -> None:
    assert invariant in failures([query(**changes)])


def test_ids_unique() -> None:
    assert failures([query(), query()]) == {"ids_unique": {"m1"}}


def test_paper_counts_only_articles_whose_text_survived() -> None:
    # 042 has 120 mentions and 5 source URLs; with the text of one of them lost, 4 < 5 articles.
    assert failures([query()], TEXTS - {A_URLS[0]}) == {"test_thresholds_met": {"m1"}}


def test_relaxed_checks_the_day_pair_and_its_urls() -> None:
    # Day-pair: 120 + 60 = 180 mentions and 6 URLs: a relaxed query even with no text at all.
    assert failures([query(recipe="relaxed", test_relations=["036", "042"])], frozenset()) == {}
    # Under limits of 200 mentions the same day-pair (180) fails.
    report = check_mirai(
        [query(recipe="relaxed")], recorded_from_quads(QUADS), ["2025-05"], "all", Thresholds(200, 5)
    )
    assert [result.name for result in report.violated] == ["test_thresholds_met"]


def test_paper_answers_are_the_events_with_text() -> None:
    # 036's one article lost its text: under the authors' construction 036 is no event of the data, so
    # an answer set holding it fails, and the answer set without it is complete.
    only_a = frozenset(A_URLS)
    assert failures([query()], only_a) == {"answers_have_text": {"m1"}}
    assert failures([query(answers=["042"], answer_roots=["04"])], only_a) == {}
    # relaxed queries have no texts to go by: every recorded relation stays an answer
    relaxed = query(recipe="relaxed", test_relations=["036", "042"], answers=["042"], answer_roots=["04"])
    assert failures([relaxed], frozenset()) == {"answers_complete": {"m1"}}


def test_every_loud_event_of_a_paper_query_has_its_articles() -> None:
    # a third event of the day-pair, 057: 110 mentions but 2 texts. The authors admit the pair only if
    # every event with >= 100 mentions has 5 texts, so testing 042 alone is not enough.
    loud = {
        **QUADS[0],
        "relation": "057",
        "num_daily_mentions": 110,
        "urls": ["https://d.example/1", "https://d.example/2"],
    }
    recorded = recorded_from_quads([*QUADS, loud])
    texts = TEXTS | set(loud["urls"])
    row = query(
        answers=["036", "042", "057"], answer_roots=["03", "04", "05"], urls=[*query()["urls"], *loud["urls"]]
    )

    def violated(limits: Thresholds) -> list[str]:
        report = check_mirai([row], recorded, ["2025-05"], "all", limits, texts)
        return [result.name for result in report.violated]

    assert violated(Thresholds()) == ["test_thresholds_met"]
    assert violated(Thresholds(admission="any")) == []
