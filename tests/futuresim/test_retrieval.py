"""Per-question retrieval contexts: top-k chunks available by the cut-off, one month before resolution."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from almanac.check.openforesight import RetrievalContext, check_openforesight
from almanac.check.retrieval import expected_cutoff
from almanac.futuresim.dates import retrieval_cutoff
from almanac.futuresim.retrieval import RetrievalConfig, index_search, retrieve
from tests.check.rows import question
from tests.futuresim.helpers import article, chunks_of, index_of

ARTICLES = [
    article("before", "2025-03-10", "Port Alder mayor race: candidates named"),
    article("on_cutoff", "2025-03-20", "Port Alder mayor debate on the harbour"),
    article("after_cutoff", "2025-03-21", "Port Alder mayor polls tighten"),
    article("answer", "2025-04-20", "Dana Whitcombe elected mayor of Port Alder"),
]
QUERY = {"question_title": "Who will be elected mayor of Port Alder?"}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_of(ARTICLES, tmp_path_factory.mktemp("retrieval") / "index")


def _retrieve(index: Path, questions: list[dict[str, Any]], **config: Any) -> list[dict[str, Any]]:
    table = retrieve(questions, RetrievalConfig(**config), index_search(index))
    return table.to_pylist()


def test_a_question_sees_chunks_up_to_its_cutoff_day_and_not_the_day_after(index: Path) -> None:
    rows = _retrieve(index, [question(**QUERY)], k=10)  # resolves 2025-04-20 -> cut-off 2025-03-20
    assert {row["article_id"] for row in rows} == {"before", "on_cutoff"}
    assert {row["cutoff_date"] for row in rows} == {date(2025, 3, 20)}
    assert [row["rank"] for row in rows] == [1, 2]
    assert {row["retrieval_backend"][:13] for row in rows} == {"bm25:tantivy-"}
    assert rows[0]["query"] == QUERY["question_title"]


def test_k_limits_the_chunks_and_cutoff_months_moves_the_cap(index: Path) -> None:
    assert len(_retrieve(index, [question(**QUERY)], k=1)) == 1
    later = _retrieve(index, [question(**QUERY)], k=10, cutoff_months=0)  # up to the resolution day itself
    assert {row["article_id"] for row in later} == {"before", "on_cutoff", "after_cutoff", "answer"}


def test_a_question_with_nothing_before_its_cutoff_keeps_one_empty_row(index: Path) -> None:
    rows = _retrieve(index, [question(resolution_date=date(2025, 4, 5), **QUERY)])  # cut-off 2025-03-05
    assert [(row["rank"], row["chunk_id"], row["text"]) for row in rows] == [(0, None, None)]
    assert rows[0]["retrieval_backend"] == "none: no chunk available by the cut-off"


def test_a_month_precision_resolution_counts_back_from_its_first_day(index: Path) -> None:
    row = question(resolution_date=date(2025, 4, 30), resolution_date_text_precision="month", **QUERY)
    rows = _retrieve(index, [row], k=10)  # "by April 2025": may resolve April 1 -> cut-off March 1
    assert [row["rank"] for row in rows] == [0]
    assert rows[0]["cutoff_date"] == date(2025, 3, 1)


def test_the_check_passes_what_the_stage_retrieves(index: Path) -> None:
    questions = [question(**QUERY), question(question_id="q2", resolution_date=date(2025, 4, 21), **QUERY)]
    rows = _retrieve(index, questions, k=10)
    chunk_days = {str(row["chunk_id"]): row["available_date"] for row in chunks_of(ARTICLES).to_pylist()}
    url = questions[0]["url"]
    corpus = {
        url: {"url": url, "publish_date": questions[0]["article_publish_date"], "date_precision": "day"}
    }
    report = check_openforesight(
        questions,
        {"train": ["2025-04"], "validation": [], "test": []},
        corpus,
        retrieval=RetrievalContext(rows, chunk_days, 1),
    )
    assert report.ok, report.lines()
    assert report.invariants["retrieval_not_after_cutoff"].checked == 5  # q2 (cut-off 03-21) sees 3


def test_the_pipeline_and_the_checker_agree_on_every_cutoff() -> None:
    """Two implementations of the rule (the checker imports no stage code), compared on every day of two
    years, a leap day included, for each precision and 0-3 months."""
    day = date(2024, 1, 1)
    while day <= date(2025, 12, 31):
        for precision in ("day", "month", "year"):
            for months in range(4):
                assert retrieval_cutoff(day, precision, months) == expected_cutoff(day, precision, months)
        day += timedelta(days=1)


def test_config_refuses_nonsense() -> None:
    with pytest.raises(ValueError, match="k must be"):
        RetrievalConfig(k=0)
    with pytest.raises(ValueError, match="query_fields"):
        RetrievalConfig(query_fields=("answer",))


# An imported split promises no date order: its question's own article ("source", 2025-03-05) and a
# syndicated copy of it on another outlet ("copy", a day later) are both before the cut-off.
SOURCE_TEXT = "Dana Whitcombe won the Port Alder mayor race with 61 percent of the vote on Sunday night"
OWN = [
    article("source", "2025-03-05", SOURCE_TEXT),
    article("copy", "2025-03-06", "Reprinted. " + SOURCE_TEXT, source="wire.example"),
    article("other", "2025-03-07", "Port Alder mayor race: a second debate is planned"),
]


@pytest.fixture(scope="module")
def own_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_of(OWN, tmp_path_factory.mktemp("own") / "index")


def test_retrieval_skips_the_questions_own_article_and_its_syndicated_copy(own_index: Path) -> None:
    imported = question(article_id="source", url="https://news.example/source", **QUERY)
    texts = {"source": SOURCE_TEXT}
    stranger = question(article_id="unrelated", url="https://news.example/unrelated", **QUERY)
    unguarded = retrieve([stranger], RetrievalConfig(k=3), index_search(own_index)).to_pylist()
    assert {row["article_id"] for row in unguarded} == {"source", "copy", "other"}  # what the search finds
    rows = retrieve([imported], RetrievalConfig(k=3), index_search(own_index), texts).to_pylist()
    assert [(row["rank"], row["article_id"]) for row in rows] == [(1, "other")]


def test_without_the_source_text_only_the_id_and_url_are_recognised(own_index: Path) -> None:
    by_url = question(article_id="elsewhere", url="https://NEWS.example/source#top", **QUERY)
    rows = retrieve([by_url], RetrievalConfig(k=3), index_search(own_index)).to_pylist()
    assert {row["article_id"] for row in rows} == {"copy", "other"}  # same canonical URL: skipped


def test_skipped_hits_are_replaced_by_the_next_ones(own_index: Path) -> None:
    imported = question(article_id="source", url="https://news.example/source", **QUERY)
    rows = retrieve([imported], RetrievalConfig(k=1), index_search(own_index), {"source": SOURCE_TEXT})
    assert rows.column("article_id").to_pylist() == ["other"]  # k=1 still gives one chunk
