"""What the two FutureSim filter stages read and write, in one place.

Every search goes through the FutureSim index (``data/futuresim/index``, built by ``futuresim_index``):
:func:`almanac.futuresim.retrieval.index_search` caps the date inside the index query (and raises if a
later chunk ever comes back), with dense/hybrid search when ``llm.roles.embedder`` names an endpoint.
:class:`IndexRetriever` presents it as the filters' :class:`~almanac.futuresim.evidence.Retriever`, a
chunk dated by its *available* day (an ``upper_bound`` article at its crawl day, the latest it may
have appeared).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from almanac.core.layout import futuresim_index_dir
from almanac.core.rejects import StageLedger
from almanac.core.stage import StageError, finish_stage
from almanac.futuresim.asking import evidence_table
from almanac.futuresim.dense import embedder_from_params
from almanac.futuresim.evidence import Chunk
from almanac.futuresim.index import MANIFEST
from almanac.futuresim.questions import write_set
from almanac.futuresim.retrieval import Search, index_search


class IndexRetriever:
    """The index search as a :class:`~almanac.futuresim.evidence.Retriever` (no lower date bound)."""

    def __init__(self, search: Search) -> None:
        self._search = search

    def search(self, query: str, cap: date, k: int) -> list[Chunk]:
        return [
            Chunk(hit.chunk_id, hit.article_id, hit.available_date, hit.text)
            for hit in self._search(query, cap, k)
        ]


def index_retriever(params: dict[str, Any], index_root: Path | None = None) -> IndexRetriever:
    root = index_root or futuresim_index_dir()
    if not (root / MANIFEST).is_file():
        raise StageError(f"no index in {root}: run `dvc repro futuresim_index` first")
    embedder = embedder_from_params(params)
    return IndexRetriever(index_search(root, embedder.embed_query if embedder else None))


def write_outputs(
    kept: list[dict[str, Any]],
    evidence: list[dict[str, Any]],
    ledger: StageLedger,
    started: float,
    folder: Path,
    rejects: Path,
    metrics: Path,
) -> None:
    """The kept questions by split, the evidence of the questions kept, rejects and metrics."""
    released = {str(row["question_id"]) for row in kept}
    write_set(kept, evidence_table([row for row in evidence if row["question_id"] in released]), folder)
    finish_stage(ledger, started, rejects, metrics)
