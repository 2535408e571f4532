"""search_chunks never returns a chunk available after its ``end``: the cap is in the index query."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
import tantivy

from almanac.futuresim.search import FutureLeakError, IndexMissingError, search_chunks
from tests.futuresim.helpers import article, index_of

# Every article mentions the query word, so only the dates decide what comes back.
ARTICLES = [
    article("early", "2025-05-01", "Ceasefire talks open in Doha"),
    article("on_cap", "2025-05-10", "Ceasefire talks stall in Doha"),
    article("day_after", "2025-05-11", "Ceasefire signed in Doha, the talks end"),
    # Crawled on 2025-05-10 with no stated day: published on some day up to the 10th.
    article("bound_on_cap", "2025-05-10", "Ceasefire rumours in Doha", precision="upper_bound"),
    # Crawled on the 12th: it may be from the 12th, so a cap of the 11th must not show it.
    article("bound_after", "2025-05-12", "Ceasefire anniversary in Doha", precision="upper_bound"),
    article("far_future", "2026-01-01", "Ceasefire holds, Doha talks a year on"),
]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return index_of(ARTICLES, tmp_path_factory.mktemp("futuresim") / "index")


def _ids(index: Path, start: str | None, end: str, k: int = 10) -> set[str]:
    return {hit.article_id for hit in search_chunks(index, "ceasefire doha", start, end, k)}


def test_cap_on_a_days_boundary_includes_that_day_and_nothing_later(index: Path) -> None:
    assert _ids(index, None, "2025-05-10") == {"early", "on_cap", "bound_on_cap"}
    assert _ids(index, None, "2025-05-09") == {"early"}
    assert _ids(index, None, "2025-05-11") == {"early", "on_cap", "bound_on_cap", "day_after"}


def test_an_upper_bound_article_comes_back_only_once_its_crawl_day_is_inside_the_cap(index: Path) -> None:
    assert "bound_after" not in _ids(index, None, "2025-05-11")
    assert "bound_after" in _ids(index, None, "2025-05-12")


def test_future_articles_never_come_back_even_when_k_exceeds_what_is_allowed(index: Path) -> None:
    hits = search_chunks(index, "ceasefire doha talks", None, date(2025, 5, 1), k=50)
    assert [hit.article_id for hit in hits] == ["early"]
    assert all(hit.available_date <= date(2025, 5, 1) for hit in hits)


def test_from_bounds_below_and_a_single_day_window_works(index: Path) -> None:
    assert _ids(index, "2025-05-10", "2025-05-10") == {"on_cap", "bound_on_cap"}
    assert _ids(index, "2025-05-11", "2026-12-31") == {"day_after", "bound_after", "far_future"}


def test_hits_carry_rank_backend_and_the_chunk(index: Path) -> None:
    hits = search_chunks(index, "stall", None, "2025-12-31", k=3)
    assert len(hits) == 1
    (hit,) = hits
    assert (hit.rank, hit.article_id, hit.ordinal, hit.text) == (
        1,
        "on_cap",
        0,
        "Ceasefire talks stall in Doha",
    )
    assert hit.backend.startswith("bm25:tantivy-")
    assert hit.score > 0


def test_a_query_with_no_terms_or_no_match_returns_nothing(index: Path) -> None:
    assert search_chunks(index, "  ...  ", None, "2026-12-31") == []
    assert search_chunks(index, "volcano", None, "2026-12-31") == []


def test_bad_arguments_and_a_missing_index_are_clear_errors(index: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="reversed"):
        search_chunks(index, "doha", "2025-05-02", "2025-05-01")
    with pytest.raises(ValueError, match="k must be"):
        search_chunks(index, "doha", None, "2025-05-01", k=0)
    with pytest.raises(IndexMissingError, match="dvc repro futuresim_index"):
        search_chunks(tmp_path / "nothing", "doha", None, "2025-05-01")


def test_the_post_check_raises_if_the_index_ever_ignored_the_cap(
    index: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Simulate a broken cap (the range clause matching every day): the later rows must raise, not pass."""

    def broken_range(*args: object, **kwargs: object) -> tantivy.Query:
        return tantivy.Query.all_query()

    monkeypatch.setattr(tantivy.Query, "range_query", staticmethod(broken_range))
    with pytest.raises(FutureLeakError, match="outside"):
        search_chunks(index, "ceasefire doha", None, "2025-05-01", k=10)
