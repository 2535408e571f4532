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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import tantivy

from almanac.core.io import read_json
from almanac.futuresim.dates import day_number, from_day_number
from almanac.futuresim.dense import Vector, dense_top, has_dense
from almanac.futuresim.index import INDEX_FOLDER, MANIFEST, index_schema
from almanac.futuresim.tokens import search_terms

EARLIEST = date(1, 1, 1)
HYBRID_CANDIDATES = 50  # chunks each ranking contributes before fusion
RRF_K = 60  # reciprocal rank fusion constant (Cormack et al. 2009)
Embed = Callable[[str], Vector]


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

    def columns(self) -> dict[str, Any]:
        """The fields a retrieval context row holds (FutureSim retrieval, series news context)."""
        return {
            "rank": self.rank,
            "chunk_id": self.chunk_id,
            "article_id": self.article_id,
            "url": self.url,
            "available_date": self.available_date,
            "date_precision": self.date_precision,
            "score": self.score,
            "text": self.text,
        }


def as_date(value: date | str) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def search_chunks(
    index_root: str | Path,
    query: str,
    start: date | str | None,
    end: date | str,
    k: int = 5,
    embed: Embed | None = None,
) -> list[SearchHit]:
    """The ``k`` best chunks for ``query`` among those available from ``start`` to ``end`` (both inclusive).

    ``index_root`` is the folder ``futuresim_index`` writes (``data/futuresim/index``); ``start`` None
    means no lower bound. A chunk is available on its article's last possible publish day, so an
    ``upper_bound`` article dated D is returned only when ``end >= D``. Hits are ordered by score, ties by
    chunk id. With ``embed`` (a query -> vector function, e.g. :meth:`Embedder.embed_query`) and dense
    vectors in the index, BM25 and cosine rankings are fused (reciprocal rank fusion); both are capped
    before scoring. Raises :class:`IndexMissingError` when there is no index and
    :class:`FutureLeakError` if the index ever returns a chunk outside the dates (it cannot: the cap is
    in the query).
    """
    first, last = (EARLIEST if start is None else as_date(start)), as_date(end)
    if first > last:
        raise ValueError(f"search dates reversed: from {first} > to {last}")
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    root = Path(index_root)
    index = open_index(root)
    manifest = read_json(root / MANIFEST)
    terms = sorted(set(search_terms(query)))
    if embed is None or not has_dense(root):
        found = _bm25(index, terms, first, last, k)
        return _hits(found[:k], str(manifest["backend"]))
    candidates = max(k, HYBRID_CANDIDATES)
    lexical = _bm25(index, terms, first, last, candidates)
    dense = dense_top(root, embed(query), first, last, candidates)
    fused: dict[str, float] = {}
    for ranking in ([row["chunk_id"] for _, row, _ in lexical], [chunk_id for chunk_id, _ in dense]):
        for rank, chunk_id in enumerate(ranking, start=1):
            fused[chunk_id] = fused.get(chunk_id, 0.0) + 1.0 / (RRF_K + rank)
    best = sorted(fused, key=lambda chunk_id: (-fused[chunk_id], chunk_id))[:k]
    rows = {row["chunk_id"]: (row, day) for _, row, day in lexical}
    rows.update(_by_id(index, [chunk_id for chunk_id in best if chunk_id not in rows], first, last))
    unknown = [chunk_id for chunk_id in best if chunk_id not in rows]
    if unknown:  # the vectors' days let it through, the index's capped query did not: never shown
        raise FutureLeakError(f"dense vectors and index disagree on the dates of chunks {unknown[:3]}")
    found = [(round(fused[chunk_id], 6), *rows[chunk_id]) for chunk_id in best]
    backend = f"hybrid:{manifest['backend']}+dense:{manifest.get('embeddings_model') or 'unknown'}"
    return _hits(found, backend)


Found = tuple[float, dict[str, Any], date]  # score, stored row, available day


def _capped(schema: tantivy.Schema, query: tantivy.Query, first: date, last: date) -> tantivy.Query:
    """``query AND first <= available_day <= last``: the cap is a clause of the index query itself."""
    cap = tantivy.Query.range_query(
        schema, "available_day", tantivy.FieldType.Integer, day_number(first), day_number(last)
    )
    # The cap scores 0 so the ranking is plain BM25; as a Must clause it still excludes every other day.
    return tantivy.Query.boolean_query(
        [(tantivy.Occur.Must, query), (tantivy.Occur.Must, tantivy.Query.const_score_query(cap, 0.0))]
    )


def _run(index: tantivy.Index, query: tantivy.Query, first: date, last: date, limit: int) -> list[Found]:
    """Run a capped query; every row read back is checked against the dates (the defensive post-check)."""
    searcher = index.searcher()
    found = []
    for score, address in searcher.search(query, limit=limit).hits:
        document = searcher.doc(address)
        day = from_day_number(int(document["available_day"][0]))
        row = json.loads(bytes(document["row"][0]).decode("utf-8"))
        if not first <= day <= last:
            raise FutureLeakError(
                f"index returned chunk {row['chunk_id']} available {day}, outside {first}..{last}"
            )
        found.append((round(float(score), 6), row, day))
    return sorted(found, key=lambda item: (-item[0], item[1]["chunk_id"]))


def _bm25(index: tantivy.Index, terms: Sequence[str], first: date, last: date, limit: int) -> list[Found]:
    if not terms:
        return []
    schema = index_schema()
    matches = tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "terms", term)) for term in terms]
    )
    return _run(index, _capped(schema, matches, first, last), first, last, limit)


def _by_id(
    index: tantivy.Index, chunk_ids: Sequence[str], first: date, last: date
) -> dict[str, tuple[dict[str, Any], date]]:
    """Stored rows of the dense-only candidates, fetched with the same cap in the query."""
    if not chunk_ids:
        return {}
    schema = index_schema()
    ids = tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "chunk_id", c)) for c in chunk_ids]
    )
    found = _run(index, _capped(schema, ids, first, last), first, last, len(chunk_ids))
    return {row["chunk_id"]: (row, day) for _, row, day in found}


def _hits(found: Sequence[Found], backend: str) -> list[SearchHit]:
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
