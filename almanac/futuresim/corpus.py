"""Corpus export: a month of deduplicated articles as day folders of JSONL, and as chunks of fixed size.

FutureSim gives agents ``articles/YYYY/MM/DD/`` folders up to the simulated day and a search over chunks of
the same articles. Both are keyed here by an article's *available* day (:mod:`almanac.futuresim.dates`), so
exposing the folders up to day D exposes no article that may have appeared after D.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.io import atomic_dir
from almanac.core.rejects import StageLedger
from almanac.core.schemas import table_from_rows
from almanac.core.step import Drop, Step, apply_step
from almanac.futuresim.dates import leak_free_day
from almanac.futuresim.schema import CHUNK_SCHEMA
from almanac.futuresim.tokens import TOKENIZER, chunk_spans, token_spans

STAGE = "futuresim_corpus"
ARTICLE_FILE = "articles.jsonl"
Article = Mapping[str, Any]


@dataclass(frozen=True)
class CorpusConfig:
    # Tokens per chunk (almanac.futuresim.tokens: words, one per CJK character); FutureSim uses 512.
    chunk_tokens: int = 512

    def __post_init__(self) -> None:
        if self.chunk_tokens < 1:
            raise ValueError(f"futuresim.corpus.chunk_tokens must be >= 1, got {self.chunk_tokens}")


@dataclass(frozen=True)
class ExportedArticle:
    record: dict[str, Any]  # the JSONL object
    day: date  # the available day: the folder it goes to
    chunks: list[dict[str, Any]]


def export_articles(
    articles: Sequence[Article], config: CorpusConfig, ledger: StageLedger
) -> tuple[list[ExportedArticle], pa.Table]:
    """Each article as its JSONL record and chunk rows; one without a usable date or text is rejected."""
    step: Step[Article, ExportedArticle] = Step(
        lambda article: _export(article, config), lambda a: str(a["id"]), lambda a: str(a["url"])
    )
    ordered = sorted(articles, key=lambda a: (a["publish_date"], str(a["id"])))
    exported = apply_step(ordered, step, ledger)
    rows = [chunk for item in exported for chunk in item.chunks]
    chunks = table_from_rows(rows, CHUNK_SCHEMA).sort_by(
        [("available_date", "ascending"), ("article_id", "ascending"), ("ordinal", "ascending")]
    )
    ledger.extra["chunks"] = chunks.num_rows
    ledger.extra["chunk_tokens"] = config.chunk_tokens
    ledger.extra["tokenizer"] = TOKENIZER
    ledger.extra["tokens"] = sum(int(row["token_count"]) for row in rows)
    ledger.extra["days"] = len({item.day for item in exported})
    ledger.extra["articles_by_precision"] = _count(item.record["date_precision"] for item in exported)
    return exported, chunks


def _count(values: Any) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for value in values:
        counts[str(value)] += 1
    return dict(sorted(counts.items()))


def _export(article: Article, config: CorpusConfig) -> ExportedArticle | Drop:
    precision = str(article["date_precision"])
    try:
        day = leak_free_day(article["publish_date"], precision)
    except ValueError as error:
        return Drop("date_precision_unknown", str(error))
    text = str(article["text"])
    spans = chunk_spans(text, config.chunk_tokens)
    if not spans:
        return Drop("no_text_tokens", f"text of {len(text)} characters has no token")
    record = {
        "id": article["id"],
        "url": article["url"],
        "source": article["source_domain"],
        "title": article.get("title"),
        "publish_date": article["publish_date"].strftime("%Y-%m-%dT%H:%M:%SZ"),
        "date_precision": precision,
        "available_date": day.isoformat(),
        "text": text,
    }
    chunks = []
    for ordinal, (start, end) in enumerate(spans):
        piece = text[start:end]
        chunks.append(
            {
                "chunk_id": content_id(str(article["id"]), str(ordinal), piece),
                "article_id": article["id"],
                "url": article["url"],
                "source": article["source_domain"],
                "publish_date": article["publish_date"],
                "date_precision": precision,
                "available_date": day,
                "ordinal": ordinal,
                "token_count": sum(1 for _ in token_spans(piece)),
                "text": piece,
            }
        )
    return ExportedArticle(record, day, chunks)


def write_day_folders(exported: Sequence[ExportedArticle], month_folder: Path) -> None:
    """``<month_folder>/DD/articles.jsonl`` per available day, sorted by publish time then id, one
    key-sorted JSON object per line; the month folder is replaced as a whole."""
    by_day: dict[date, list[dict[str, Any]]] = defaultdict(list)
    for item in exported:
        by_day[item.day].append(item.record)
    with atomic_dir(month_folder) as staging:
        for day, records in sorted(by_day.items()):
            lines = [json.dumps(record, sort_keys=True, ensure_ascii=False) for record in records]
            folder = staging / f"{day.day:02d}"
            folder.mkdir()
            (folder / ARTICLE_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
