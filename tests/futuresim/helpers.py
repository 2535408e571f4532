"""Small corpora for the FutureSim tests: articles as the dedup stage writes them, and an index over them."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.futuresim.corpus import CorpusConfig, export_articles
from almanac.futuresim.index import BACKEND, IndexManifest, build_index


def article(
    article_id: str, day: str, text: str, precision: str = "day", source: str = "news.example"
) -> dict[str, Any]:
    return {
        "id": article_id,
        "url": f"https://{source}/{article_id}",
        "source_domain": source,
        "title": f"title {article_id}",
        "text": text,
        "publish_date": datetime.fromisoformat(day).replace(tzinfo=UTC),
        "date_precision": precision,
    }


def chunks_of(articles: list[dict[str, Any]], chunk_tokens: int = 512) -> pa.Table:
    _exported, chunks = export_articles(articles, CorpusConfig(chunk_tokens), StageLedger("futuresim_corpus"))
    return chunks


def index_of(articles: list[dict[str, Any]], root: Path, chunk_tokens: int = 512) -> Path:
    chunks = chunks_of(articles, chunk_tokens)
    build_index(chunks, root, IndexManifest(BACKEND, "almanac-words-v1", chunk_tokens, chunks.num_rows, ()))
    return root
