"""Per-question retrieval context for released OpenForesight splits, as FutureSim and OpenForesight
evaluate with retrieval: each question's top-k chunks from articles available up to its cut-off.

The cut-off is ``cutoff_months`` before the resolution date (:func:`almanac.futuresim.dates.retrieval_cutoff`)
and the search cannot return anything later (:func:`almanac.futuresim.search.search_chunks`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.progress import progress
from almanac.core.schemas import table_from_rows
from almanac.futuresim.dates import retrieval_cutoff
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

    def __post_init__(self) -> None:
        if self.k < 1:
            raise ValueError(f"futuresim.retrieval.k must be >= 1, got {self.k}")
        if self.cutoff_months < 0:
            raise ValueError(f"futuresim.retrieval.cutoff_months must be >= 0, got {self.cutoff_months}")
        unknown = sorted(set(self.query_fields) - set(QUERY_FIELDS))
        if unknown or not self.query_fields:
            raise ValueError(f"futuresim.retrieval.query_fields {unknown}: choose from {list(QUERY_FIELDS)}")


def index_search(index_root: Path, embed: Embed | None = None) -> Search:
    """The search over the built index (hybrid with ``embed`` and dense vectors), as a :data:`Search`."""
    return lambda query, cutoff, k: search_chunks(index_root, query, None, cutoff, k, embed)


def question_query(question: Mapping[str, Any], fields: Sequence[str]) -> str:
    return "\n\n".join(str(question.get(name) or "").strip() for name in fields).strip()


def retrieve(questions: Sequence[Mapping[str, Any]], config: RetrievalConfig, search: Search) -> pa.Table:
    """One row per question and retrieved chunk (rank 1 = best), or one rank-0 row for a question with
    no chunk under its cut-off, so every released question appears."""
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
        hits = search(query, cutoff, config.k)
        rows.extend({**base, **_hit_columns(hit), "retrieval_backend": hit.backend} for hit in hits)
        if not hits:
            rows.append({**base, **_hit_columns(None), "retrieval_backend": NO_HIT_BACKEND})
    table = table_from_rows(rows, RETRIEVAL_SCHEMA)
    return table.sort_by([("question_id", "ascending"), ("rank", "ascending")])


def _hit_columns(hit: SearchHit | None) -> dict[str, Any]:
    if hit is None:
        columns = ("chunk_id", "article_id", "url", "available_date", "date_precision", "score", "text")
        return {"rank": 0, **dict.fromkeys(columns)}
    return {
        "rank": hit.rank,
        "chunk_id": hit.chunk_id,
        "article_id": hit.article_id,
        "url": hit.url,
        "available_date": hit.available_date,
        "date_precision": hit.date_precision,
        "score": hit.score,
        "text": hit.text,
    }
