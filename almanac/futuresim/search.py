"""Date-capped search over the FutureSim chunk index: nothing dated after ``end`` can come back.

The cap is part of the index query: every query is ``terms AND available_day <= end`` (tantivy range query
on the indexed day), so a later chunk is never scored, let alone returned. A defensive post-check then reads
each hit's stored day back and raises :class:`FutureLeakError` if one is after ``end`` (or before
``start``): that would be a bug in the index or the query, never something to filter away quietly.

A chunk's day is its article's *available* day, the last day it may have been published on (an
``upper_bound`` article counts at its crawl date): see :mod:`almanac.futuresim.dates`.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import tantivy

from almanac.core.io import read_json
from almanac.futuresim.dates import day_number, from_day_number
from almanac.futuresim.index import INDEX_FOLDER, MANIFEST, index_schema
from almanac.futuresim.tokens import search_terms

EARLIEST = date(1, 1, 1)


class FutureLeakError(RuntimeError):
    """The index returned a chunk outside the requested dates: the date cap failed."""


class IndexMissingError(RuntimeError):
    """No FutureSim index at the given folder (run ``dvc repro futuresim_index``)."""


@dataclass(frozen=True)
class SearchHit:
    rank: int  # 1 = best
    score: float  # BM25 (or the fused score of a hybrid search), rounded to 6 decimals
    chunk_id: str
    article_id: str
    url: str
    source: str
    available_date: date  # the last day the article may have been published on; <= the search's end
    date_precision: str  # day | upper_bound
    ordinal: int
    text: str
    backend: str  # which retrieval made it, e.g. "bm25:tantivy-0.27.0"


def as_date(value: date | str) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def search_chunks(
    index_root: str | Path,
    query: str,
    start: date | str | None,
    end: date | str,
    k: int = 5,
) -> list[SearchHit]:
    """The ``k`` best chunks for ``query`` among those available from ``start`` to ``end`` (both inclusive).

    ``index_root`` is the folder ``futuresim_index`` writes (``data/futuresim/index``); ``start`` None
    means no lower bound. A chunk is available on its article's last possible publish day, so an
    ``upper_bound`` article dated D is returned only when ``end >= D``. Hits are ordered by score, ties by
    chunk id. Raises :class:`IndexMissingError` when there is no index and :class:`FutureLeakError` if
    the index ever returns a chunk outside the dates (it cannot: the cap is in the query).
    """
    first, last = (EARLIEST if start is None else as_date(start)), as_date(end)
    if first > last:
        raise ValueError(f"search dates reversed: from {first} > to {last}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    root = Path(index_root)
    index = open_index(root)
    backend = str(read_json(root / MANIFEST)["backend"])
    terms = sorted(set(search_terms(query)))
    if not terms:
        return []
    schema = index_schema()
    matches = tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "terms", term)) for term in terms]
    )
    cap = tantivy.Query.range_query(
        schema, "available_day", tantivy.FieldType.Integer, day_number(first), day_number(last)
    )
    # The cap scores 0 so the ranking is plain BM25; as a Must clause it still excludes every other day.
    query_with_cap = tantivy.Query.boolean_query(
        [(tantivy.Occur.Must, matches), (tantivy.Occur.Must, tantivy.Query.const_score_query(cap, 0.0))]
    )
    searcher = index.searcher()
    found = []
    for score, address in searcher.search(query_with_cap, limit=k).hits:
        document = searcher.doc(address)
        day = from_day_number(int(document["available_day"][0]))
        row = json.loads(bytes(document["row"][0]).decode("utf-8"))
        if not first <= day <= last:
            raise FutureLeakError(
                f"index returned chunk {row['chunk_id']} available {day}, outside {first}..{last}"
            )
        found.append((round(float(score), 6), row, day))
    found.sort(key=lambda item: (-item[0], item[1]["chunk_id"]))
    return [
        SearchHit(
            rank=rank,
            score=score,
            chunk_id=row["chunk_id"],
            article_id=row["article_id"],
            url=row["url"],
            source=row["source"],
            available_date=day,
            date_precision=row["date_precision"],
            ordinal=int(row["ordinal"]),
            text=row["text"],
            backend=backend,
        )
        for rank, (score, row, day) in enumerate(found, start=1)
    ]


def open_index(root: Path) -> tantivy.Index:
    """The index under ``root``, opened once per build (a rebuild changes ``meta.json``'s time)."""
    folder = root / INDEX_FOLDER
    if not (folder / "meta.json").is_file() or not (root / MANIFEST).is_file():
        raise IndexMissingError(f"no FutureSim index in {root}: run `dvc repro futuresim_index` first")
    return _opened(str(folder.resolve()), (folder / "meta.json").stat().st_mtime_ns)


@functools.lru_cache(maxsize=4)
def _opened(folder: str, _meta_time: int) -> tantivy.Index:
    return tantivy.Index.open(folder)
