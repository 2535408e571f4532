"""A question's own source article, kept out of its retrieval context.

The article a question was written from states the answer. For our splits it is published after the
question's retrieval cut-off, so the date cap alone keeps it out; an imported split promises nothing of the
kind, and a syndicated copy of the article (another outlet, another URL, a day earlier) passes any date
cap. A hit is the question's own article when it has the same article id, the same canonical URL, or when
most of the chunk's word 5-grams occur in the source article's text (containment, not Jaccard: a chunk is a
small piece of an article, so Jaccard against the whole article would stay low for an exact copy).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from almanac.core.ids import canonical_url
from almanac.core.text import fold

SHINGLE_WORDS = 5
_WORD = re.compile(r"\w+")


def shingles(text: str, words: int = SHINGLE_WORDS) -> frozenset[tuple[str, ...]]:
    """Word ``words``-grams of the case-folded text; a text shorter than that is one shingle of all of it."""
    tokens = _WORD.findall(fold(text))
    if len(tokens) < words:
        return frozenset({tuple(tokens)}) if tokens else frozenset()
    return frozenset(tuple(tokens[i : i + words]) for i in range(len(tokens) - words + 1))


def containment(part: str, whole: frozenset[tuple[str, ...]]) -> float:
    """Share of ``part``'s shingles found in ``whole`` (0.0 when ``part`` has none)."""
    own = shingles(part)
    return len(own & whole) / len(own) if own else 0.0


@dataclass(frozen=True)
class SourceArticle:
    """What identifies a question's source article: its id, canonical URL and text shingles (empty when
    the text is not known, e.g. an imported row whose article is not in the corpus)."""

    article_id: str
    url: str
    text_shingles: frozenset[tuple[str, ...]]


def source_article(question: Mapping[str, Any], texts: Mapping[str, str]) -> SourceArticle:
    """The question's source, its text looked up by article id in ``texts`` (id -> article text)."""
    article_id = str(question.get("article_id") or "")
    url = str(question.get("url") or "")
    return SourceArticle(article_id, canonical_url(url) if url else "", shingles(texts.get(article_id, "")))


def own_article_reason(
    source: SourceArticle, article_id: str, url: str, text: str, threshold: float
) -> str | None:
    """Why a hit (its article id, URL and chunk text) is the question's own article, or None."""
    if source.article_id and article_id == source.article_id:
        return f"the question's own article {article_id}"
    if source.url and url and canonical_url(url) == source.url:
        return f"the question's own URL {source.url}"
    if source.text_shingles and (share := containment(text, source.text_shingles)) >= threshold:
        return f"{share:.0%} of the chunk's 5-grams are in the question's own article"
    return None


def article_texts(folder: Path, article_ids: Collection[str]) -> dict[str, str]:
    """Text of each wanted article in the corpus files below ``folder`` (a month's parts, or one
    ``<month>.parquet``), read one row group at a time so only the wanted texts are held."""
    wanted = set(article_ids)
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*.parquet")):
        parquet = pq.ParquetFile(path)
        for batch in parquet.iter_batches(batch_size=1024, columns=["id", "text"]):
            for article_id, text in zip(
                batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True
            ):
                if article_id in wanted:
                    found[str(article_id)] = str(text or "")
    return found
