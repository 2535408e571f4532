"""News context of series questions (issue 29 item 3): the top-k FutureSim chunks available by the forecast
date, and `almanac check series` catching a chunk dated after it or a context over the cap.

The questions are those of tests/series/test_questions.py: series "Test index", forecast date 2025-04-01
(one binary and one numeric question, resolution 2025-05-01). The fixture corpus straddles that date:
"before" (2025-03-20) and "on" (2025-04-01, the forecast day itself: published by then) may be shown;
"after" (2025-04-02) and "crawled" (upper_bound 2025-04-05: published some day up to April 5, so
possibly after April 1) may not, though "after" matches the query best.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from almanac.check.retrieval import corpus_chunk_days
from almanac.check.run import check_style
from almanac.check.series import check_series
from almanac.check.series_context import NewsContextRules
from almanac.core.layout import articles_dir, futuresim_chunks_dir
from almanac.futuresim.retrieval import index_search
from almanac.series.context import add_context, context_counts
from almanac.series.context_config import SeriesContextConfig
from almanac.series.release import build_release
from tests.futuresim.helpers import article, chunks_of, index_of
from tests.series.test_questions import ROWS
from tests.series.test_stages import CONFIG, SPLIT, released

ARTICLES = [
    article("before", "2025-03-20", "Test index test index figures rose in March."),
    article("on", "2025-04-01", "The test index came up once in a long report on many other matters."),
    article("after", "2025-04-02", "Test index test index test index jumped on April 2."),
    article("crawled", "2025-04-05", "Test index news of uncertain date.", precision="upper_bound"),
    article("unrelated", "2025-03-01", "Weather was mild across the region."),
]
SERIES_PARAMS = {"train_months": ["2025-04"], "test_months": ["2025-05"]}
FORECAST = date(2025, 4, 1)


def with_context(root: Path, k: int) -> dict[tuple[str, str], pa.Table]:
    tables, _ = build_release(ROWS, SPLIT, CONFIG)
    return add_context(tables, SeriesContextConfig(), k, index_search(index_of(ARTICLES, root)))


def shown(table: pa.Table) -> list[list[str]]:
    return [[c["article_id"] for c in context] for context in table.column("news_context").to_pylist()]


def test_context_holds_only_chunks_published_by_the_forecast_date(tmp_path: Path) -> None:
    table = with_context(tmp_path / "index", k=5)[("test", "2025-05")]
    assert table.column("forecast_date").to_pylist() == [FORECAST, FORECAST]
    assert table.column("news_query").to_pylist() == ["Test index", "Test index"]
    # "before" has the query's two words twice in a short chunk: it outranks "on".
    assert shown(table) == [["before", "on"], ["before", "on"]]
    context = table.column("news_context").to_pylist()[0]
    assert [(c["rank"], c["available_date"], c["date_precision"]) for c in context] == [
        (1, date(2025, 3, 20), "day"),
        (2, date(2025, 4, 1), "day"),
    ]
    assert context_counts({("test", "2025-05"): table}) == {
        "questions_with_news_context": 2,
        "news_context_chunks": 4,
    }


def test_context_is_capped_at_k_and_can_be_switched_off(tmp_path: Path) -> None:
    assert shown(with_context(tmp_path / "index", k=1)[("test", "2025-05")]) == [["before"], ["before"]]
    tables, _ = build_release(ROWS, SPLIT, CONFIG)
    off = add_context(tables, SeriesContextConfig(enabled=False), 5, search=None)[("test", "2025-05")]
    assert shown(off) == [[], []] and off.column("news_query").to_pylist() == ["", ""]
    with pytest.raises(ValueError, match="query_fields"):
        SeriesContextConfig(query_fields=("question",))


def test_no_chunk_before_the_forecast_date_gives_an_empty_context(tmp_path: Path) -> None:
    """The sample's case: series questions of 2008-09 and news of 2025."""
    late = [article("late", "2025-06-01", "Test index in June.")]
    tables, _ = build_release(ROWS, SPLIT, CONFIG)
    out = add_context(tables, SeriesContextConfig(), 5, index_search(index_of(late, tmp_path / "index")))
    assert shown(out[("test", "2025-05")]) == [[], []]


def rules(k: int = 5, chunk_tokens: int = 512, traced: bool = True) -> NewsContextRules:
    if not traced:
        return NewsContextRules(k, chunk_tokens)
    days, problems = corpus_chunk_days(chunks_of(ARTICLES).to_pylist(), {a["id"]: a for a in ARTICLES})
    return NewsContextRules(k, chunk_tokens, days, problems)


def chunk_row(article_id: str, rank: int, **changes: Any) -> dict[str, Any]:
    chunk = next(c for c in chunks_of(ARTICLES).to_pylist() if c["article_id"] == article_id)
    return {
        "rank": rank,
        "chunk_id": chunk["chunk_id"],
        "article_id": article_id,
        "url": chunk["url"],
        "available_date": chunk["available_date"],
        "date_precision": chunk["date_precision"],
        "score": 1.0,
        "text": chunk["text"],
        **changes,
    }


def violated(rows: list[dict[str, Any]], news: NewsContextRules) -> dict[str, list[str]]:
    report = check_series(rows, ROWS, {"train": ["2025-04"], "test": ["2025-05"]}, news=news)
    return {result.name: list(result.failures) for result in report.violated}


def test_check_passes_the_built_context_and_reports_a_chunk_after_the_forecast_date(tmp_path: Path) -> None:
    rows = with_context(tmp_path / "index", k=5)[("test", "2025-05")].to_pylist()
    assert violated(rows, rules()) == {}
    first = rows[0]["question_id"]
    rows[0]["news_context"] = [chunk_row("after", 1)]  # published April 2 > April 1
    assert violated(rows, rules()) == {"news_context_not_after_forecast_date": [first]}
    rows[0]["news_context"] = [chunk_row("crawled", 1)]  # upper_bound April 5: may be after April 1
    assert violated(rows, rules()) == {"news_context_not_after_forecast_date": [first]}
    # back-dated in the row: the corpus says April 2
    rows[0]["news_context"] = [chunk_row("after", 1, available_date=date(2025, 3, 30))]
    assert violated(rows, rules()) == {"news_context_not_after_forecast_date": [first]}


def test_a_month_precision_date_counts_as_its_last_day() -> None:
    rows, _ = build_release(ROWS, SPLIT, CONFIG)
    questions = rows[("test", "2025-05")].to_pylist()
    first = questions[0]["question_id"]
    # "April 2025" may be April 30: after the forecast date April 1 (as a day, April 1 would be fine).
    questions[0]["news_context"] = [chunk_row("on", 1, date_precision="month")]
    assert violated(questions, rules(traced=False)) == {"news_context_not_after_forecast_date": [first]}
    questions[0]["news_context"] = [chunk_row("on", 1)]
    assert violated(questions, rules(traced=False)) == {}
    questions[0]["news_context"] = [chunk_row("before", 1, date_precision="month")]  # March 31 <= April 1
    assert violated(questions, rules(traced=False)) == {}


def test_check_reports_a_context_over_the_cap(tmp_path: Path) -> None:
    rows = with_context(tmp_path / "index", k=5)[("test", "2025-05")].to_pylist()
    first = rows[0]["question_id"]
    assert violated(rows, rules(k=1)) == {"news_context_capped": [q["question_id"] for q in rows]}
    rows[1]["news_context"] = []
    rows[0]["news_context"] = [chunk_row("on", 2), chunk_row("before", 1)]  # ranks out of order
    assert violated(rows, rules()) == {"news_context_capped": [first]}
    rows[0]["news_context"] = [chunk_row("before", 1)]  # 8 words
    assert violated(rows, rules(chunk_tokens=8)) == {}
    assert violated(rows, rules(chunk_tokens=7)) == {"news_context_capped": [first]}


def test_almanac_check_series_traces_context_chunks_to_the_corpus(tmp_path: Path) -> None:
    tables = with_context(tmp_path / "index", k=5)
    released(tmp_path, tables, ROWS)
    (tmp_path / futuresim_chunks_dir()).mkdir(parents=True)
    pq.write_table(chunks_of(ARTICLES), tmp_path / futuresim_chunks_dir() / "2025-04.parquet")
    (tmp_path / articles_dir()).mkdir(parents=True)
    pq.write_table(pa.Table.from_pylist(ARTICLES), tmp_path / articles_dir() / "2025-04.parquet")
    params = {"series": {"split": SERIES_PARAMS}}
    assert check_style("series", "all", params, tmp_path).ok
    rows = tables[("test", "2025-05")].to_pylist()
    rows[1]["news_context"] = [chunk_row("after", 1, available_date=date(2025, 3, 30))]
    released(
        tmp_path, {("test", "2025-05"): pa.Table.from_pylist(rows, tables[("test", "2025-05")].schema)}, ROWS
    )
    report = check_style("series", "all", params, tmp_path)
    assert {result.name: list(result.failures) for result in report.violated} == {
        "news_context_not_after_forecast_date": [rows[1]["question_id"]]
    }
