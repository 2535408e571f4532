"""Per-question retrieval context for released OpenForesight splits, as FutureSim and OpenForesight
evaluate with retrieval: each question's top-k chunks from articles available up to its cut-off.

The cut-off is ``cutoff_months`` before the resolution date (:func:`almanac.futuresim.dates.retrieval_cutoff`)
and the search cannot return anything later (:func:`almanac.futuresim.search.search_chunks`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.progress import progress
from almanac.core.schemas import table_from_rows
from almanac.futuresim.dates import retrieval_cutoff
from almanac.futuresim.own_article import SourceArticle, own_article_reason, source_article
from almanac.futuresim.schema import RETRIEVAL_SCHEMA
from almanac.futuresim.search import Embed, SearchHit, search_chunks

STAGE = "futuresim_retrieval"
QUERY_FIELDS = ("question_title", "background", "resolution_criteria")
Search = Callable[[str, date, int], list[SearchHit]]  # (query, cut-off, k) -> hits
# Named on a question's rows when the search returned nothing (no hit says which backend ran).
NO_HIT_BACKEND = "none: no chunk available by the cut-off"


@dataclass(frozen=True)
class RetrievalConfig:
    k: int = 5  # chunks per question (FutureSim's search_news returns 5)
    cutoff_months: int = 1  # OpenForesight retrieves up to one month before the resolution date
    # The question fields joined (blank line between) into the query; the answer is never one of them.
    query_fields: tuple[str, ...] = ("question_title",)
    # A hit whose chunk has at least this share of its word 5-grams in the question's own source article
    # is that article (a syndicated copy); it is skipped, as are hits with its id or canonical URL.
    own_article_containment: float = 0.5

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"futuresim.retrieval.k must be >= 1, got {self.k}")
        if self.cutoff_months < 0:
            raise ValueError(f"futuresim.retrieval.cutoff_months must be >= 0, got {self.cutoff_months}")
        unknown = sorted(set(self.query_fields) - set(QUERY_FIELDS))
        if unknown or not self.query_fields:
            raise ValueError(f"futuresim.retrieval.query_fields {unknown}: choose from {list(QUERY_FIELDS)}")
        if not 0.0 < self.own_article_containment <= 1.0:
            raise ValueError("futuresim.retrieval.own_article_containment must be in (0, 1]")


@dataclass
class RetrievalTally:
    """Hits skipped because they were a question's own article, by question id."""

    own_article: dict[str, int] = field(default_factory=dict)

    @property
    def skipped(self) -> int:
        return sum(self.own_article.values())


def index_search(index_root: Path, embed: Embed | None = None) -> Search:
    """The search over the built index (hybrid with ``embed`` and dense vectors), as a :data:`Search`."""
    return lambda query, cutoff, k: search_chunks(index_root, query, None, cutoff, k, embed)


def question_query(question: Mapping[str, Any], fields: Sequence[str]) -> str:
    return "\n\n".join(str(question.get(name) or "").strip() for name in fields).strip()


def retrieve(
    questions: Sequence[Mapping[str, Any]],
    config: RetrievalConfig,
    search: Search,
    texts: Mapping[str, str] | None = None,
    tally: RetrievalTally | None = None,
) -> pa.Table:
    """One row per question and retrieved chunk (rank 1 = best), or one rank-0 row for a question with
    no chunk under its cut-off, so every released question appears. ``texts`` (article id -> text) lets
    a syndicated copy of a question's own article be recognised; hits of that article are skipped
    (:mod:`almanac.futuresim.own_article`) and counted in ``tally``."""
    rows: list[dict[str, Any]] = []
    for question in progress(questions, desc=STAGE, unit="question"):
        precision = str(question.get("resolution_date_text_precision") or "day")
        resolution: date = question["resolution_date"]
        cutoff = retrieval_cutoff(resolution, precision, config.cutoff_months)
        query = question_query(question, config.query_fields)
        base = {
            "question_id": question["question_id"],
            "split": question["split"],
            "resolution_date": resolution,
            "resolution_date_precision": precision,
            "cutoff_date": cutoff,
            "query": query,
        }
        source = source_article(question, texts or {})
        hits, skipped = _hits_without_own_article(search, query, cutoff, config, source)
        if skipped and tally is not None:
            tally.own_article[str(question["question_id"])] = skipped
        rows.extend({**base, **_hit_columns(hit), "retrieval_backend": hit.backend} for hit in hits)
        if not hits:
            rows.append({**base, **_hit_columns(None), "retrieval_backend": NO_HIT_BACKEND})
    table = table_from_rows(rows, RETRIEVAL_SCHEMA)
    return table.sort_by([("question_id", "ascending"), ("rank", "ascending")])


def _hits_without_own_article(
    search: Search, query: str, cutoff: date, config: RetrievalConfig, source: SourceArticle
) -> tuple[list[SearchHit], int]:
    """The ``k`` best hits that are not the question's own article, re-ranked 1..k, and how many were
    skipped. Asks for more hits (doubling, up to 16k) while skipped ones leave fewer than ``k``."""
    wanted = config.k
    while True:
        hits = search(query, cutoff, wanted)
        kept = [
            hit
            for hit in hits
            if own_article_reason(source, hit.article_id, hit.url, hit.text, config.own_article_containment)
            is None
        ]
        if len(kept) >= config.k or len(hits) < wanted or wanted >= 16 * config.k:
            break
        wanted *= 2
    skipped = len(hits) - len(kept)
    kept = kept[: config.k]
    return [replace(hit, rank=rank) for rank, hit in enumerate(kept, start=1)], skipped


def _hit_columns(hit: SearchHit | None) -> dict[str, Any]:
    if hit is None:
        columns = ("chunk_id", "article_id", "url", "available_date", "date_precision", "score", "text")
        return {"rank": 0, **dict.fromkeys(columns)}
    return hit.columns()
