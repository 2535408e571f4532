"""What the two FutureSim filter stages read and write, in one place.

The retriever is :class:`~almanac.futuresim.evidence.CappedChunks` over the paragraphs of the
deduplicated corpus (``data/articles``), each dated by its article's publish day (an ``upper_bound``
day, the crawl date, is the latest the article can have appeared, so the cap never lets it in early).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from almanac.core.layout import articles_dir
from almanac.core.rejects import StageLedger
from almanac.core.stage import finish_stage
from almanac.futuresim.asking import evidence_table
from almanac.futuresim.evidence import CappedChunks, corpus_chunks
from almanac.futuresim.questions import write_set


def corpus_retriever(folder: Path | None = None) -> CappedChunks:
    articles = []
    for path in sorted((folder or articles_dir()).glob("*.parquet")):
        for row in pq.read_table(path, columns=["id", "publish_date", "text"]).to_pylist():
            if row["publish_date"] is not None:
                articles.append((str(row["id"]), row["publish_date"].date(), str(row["text"])))
    return CappedChunks(corpus_chunks(articles))


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
