"""The FutureSim retrieval invariants of `almanac check openforesight`: a violating row of each is reported.

The question (tests/check/rows.py) resolves 2025-04-20, so with one month its cut-off is 2025-03-20: a chunk
available 2025-03-20 may be shown, one available 2025-03-21 may not.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from almanac.check.openforesight import RetrievalContext, check_openforesight
from almanac.check.retrieval import expected_cutoff
from tests.check.rows import article, question

MONTHS = {"train": ["2025-04"], "validation": ["2025-05"], "test": ["2025-06"]}
URL = "https://news.example/2025/04/20/mayor"
CHUNKS = {"c-on-cutoff": date(2025, 3, 20), "c-day-after": date(2025, 3, 21), "c-early": date(2025, 3, 1)}


def context_row(**changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "question_id": "q-train-1",
        "split": "train",
        "resolution_date": date(2025, 4, 20),
        "resolution_date_precision": "day",
        "cutoff_date": date(2025, 3, 20),
        "query": "Who will be elected mayor of Port Alder by April 30, 2025?",
        "rank": 1,
        "chunk_id": "c-on-cutoff",
        "article_id": "a1",
        "url": "https://news.example/a1",
        "available_date": date(2025, 3, 20),
        "date_precision": "day",
        "score": 1.5,
        "text": "Port Alder campaign opens",
        "retrieval_backend": "bm25:tantivy-0.27.0",
    }
    row.update(changes)
    return row


def failures(
    rows: list[dict[str, Any]], questions: list[dict[str, Any]] | None = None
) -> dict[str, set[str]]:
    report = check_openforesight(
        questions or [question()],
        MONTHS,
        {URL: article(URL, date(2025, 4, 20))},
        retrieval=RetrievalContext(rows, CHUNKS, cutoff_months=1),
    )
    return {result.name: set(result.failures) for result in report.violated}


def test_a_chunk_available_on_the_cutoff_day_passes() -> None:
    rows = [context_row(), context_row(rank=2, chunk_id="c-early", available_date=date(2025, 3, 1))]
    assert failures(rows) == {}


def test_a_chunk_available_the_day_after_the_cutoff_is_a_violation() -> None:
    rows = [context_row(chunk_id="c-day-after", available_date=date(2025, 3, 21))]
    assert failures(rows) == {"retrieval_not_after_cutoff": {"q-train-1#1"}}


def test_the_corpus_date_decides_not_the_rows_claim() -> None:
    # The row claims the cut-off day, but the corpus says the chunk appeared a day later.
    rows = [context_row(chunk_id="c-day-after")]
    assert failures(rows) == {"retrieval_not_after_cutoff": {"q-train-1#1"}}


def test_a_chunk_missing_from_the_corpus_is_a_violation() -> None:
    assert failures([context_row(chunk_id="invented")]) == {"retrieval_not_after_cutoff": {"q-train-1#1"}}


def test_a_cutoff_later_than_the_rule_is_a_violation_even_when_the_chunk_is_before_it() -> None:
    rows = [context_row(cutoff_date=date(2025, 4, 19))]
    assert failures(rows) == {"retrieval_cutoff_rule": {"q-train-1#1"}}


def test_a_context_must_match_its_questions_resolution_and_every_question_needs_one() -> None:
    rows = [context_row(resolution_date=date(2025, 4, 30), cutoff_date=date(2025, 3, 30))]
    assert failures(rows) == {"retrieval_cutoff_rule": {"q-train-1#1"}}
    assert failures([]) == {"retrieval_covers_questions": {"q-train-1"}}


def test_a_question_with_no_chunk_keeps_a_rank_zero_row_that_shows_nothing() -> None:
    empty = context_row(rank=0, chunk_id=None, available_date=None, text=None, score=None)
    assert failures([empty]) == {}


@pytest.mark.parametrize(
    ("resolution", "precision", "months", "expected"),
    [
        (date(2025, 4, 20), "day", 1, date(2025, 3, 20)),
        (date(2025, 3, 31), "day", 1, date(2025, 2, 28)),  # no February 31st: the month's last day
        (date(2024, 3, 31), "day", 1, date(2024, 2, 29)),
        (date(2025, 7, 31), "month", 1, date(2025, 6, 1)),  # "by July 2025": counted from July 1
        (date(2025, 1, 15), "day", 1, date(2024, 12, 15)),
        (date(2025, 12, 31), "year", 2, date(2024, 11, 1)),
        (date(2025, 4, 20), "day", 0, date(2025, 4, 20)),
    ],
)
def test_the_cutoff_rule_worked_by_hand(
    resolution: date, precision: str, months: int, expected: date
) -> None:
    assert expected_cutoff(resolution, precision, months) == expected


def test_a_back_dated_chunk_table_is_caught_by_the_corpus_date() -> None:
    from datetime import UTC, datetime

    from almanac.check.retrieval import corpus_chunk_days
    from almanac.core.ids import content_id

    text = "Port Alder campaign opens"
    chunk_id = content_id("a1", "0", text)
    # The chunk table claims 2025-03-20 (on the cut-off); the corpus article was published 2025-03-25.
    chunks = [{"chunk_id": chunk_id, "article_id": "a1", "ordinal": 0, "text": text}]
    corpus = {"a1": {"publish_date": datetime(2025, 3, 25, 9, tzinfo=UTC), "date_precision": "day"}}
    days, problems = corpus_chunk_days(chunks, corpus)
    assert days == {chunk_id: date(2025, 3, 25)} and problems == {}
    row = context_row(chunk_id=chunk_id, available_date=date(2025, 3, 20))
    report = check_openforesight(
        [question()],
        MONTHS,
        {URL: article(URL, date(2025, 4, 20))},
        retrieval=RetrievalContext([row], days, 1, problems),
    )
    assert {result.name: set(result.failures) for result in report.violated} == {
        "retrieval_not_after_cutoff": {"q-train-1#1"}
    }


def test_a_chunk_whose_article_id_was_swapped_or_undated_has_no_day() -> None:
    from datetime import UTC, datetime

    from almanac.check.retrieval import corpus_chunk_days
    from almanac.core.ids import content_id

    text = "Port Alder campaign opens"
    swapped = {"chunk_id": content_id("a1", "0", text), "article_id": "a0", "ordinal": 0, "text": text}
    undated = {"chunk_id": content_id("a2", "0", text), "article_id": "a2", "ordinal": 0, "text": text}
    corpus = {
        "a0": {"publish_date": datetime(2025, 1, 1, tzinfo=UTC), "date_precision": "day"},
        "a2": {"publish_date": datetime(2025, 1, 1, tzinfo=UTC), "date_precision": "month"},
    }
    days, problems = corpus_chunk_days([swapped, undated], corpus)
    assert days == {}
    assert "not the hash" in problems[swapped["chunk_id"]] and "'month'" in problems[undated["chunk_id"]]


def test_article_last_day_follows_the_precision() -> None:
    from datetime import UTC, datetime

    from almanac.check.dates import article_last_day

    published = datetime(2025, 3, 25, 23, 30, tzinfo=UTC)
    assert article_last_day(published, "day") == date(2025, 3, 25)
    assert article_last_day(published, "upper_bound") == date(2025, 3, 25)  # the crawl bounds it
    assert article_last_day(published, "month") is None  # no precision the corpus knows: no day


def test_a_chunk_of_the_questions_own_article_is_reported() -> None:
    rows = [
        context_row(article_id="a-own"),
        context_row(rank=2, url="https://NEWS.example/2025/04/20/mayor#x"),
    ]
    assert failures(rows, [question(article_id="a-own")]) == {
        "retrieval_not_own_article": {"q-train-1#1", "q-train-1#2"},
    }


def test_a_chunk_that_copies_the_questions_own_article_is_reported() -> None:
    source = "Dana Whitcombe won the Port Alder mayor race with 61 percent of the vote on Sunday"
    copied = context_row(url="https://wire.example/reprint", text="Reprint: " + source)
    report = check_openforesight(
        [question()],
        MONTHS,
        {URL: article(URL, date(2025, 4, 20), text=source)},
        retrieval=RetrievalContext([copied, context_row(rank=2)], CHUNKS, cutoff_months=1),
    )
    assert {result.name: set(result.failures) for result in report.violated} == {
        "retrieval_not_own_article": {"q-train-1#1"}
    }
