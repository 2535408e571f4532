"""Retrieval with a date cap, as the question filters need it: query + cap day + k -> dated chunks.

The filters only need one promise from a search backend: nothing published after the cap comes back.
:class:`Retriever` is that contract. The stages use the FutureSim index through
:class:`almanac.futuresim.filter_io.IndexRetriever`; :class:`CappedChunks` is a small in-memory BM25 with
the same contract, for hand-written chunks in tests and for library users without an index.
The cap is enforced here as well as by the backend: :func:`search_capped` drops and counts whatever a
backend returns past its cap, so a leaking index cannot put a future chunk in front of a role.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Protocol

from almanac.core.text import fold

# Words too common to say what a question is about; the rest of a query is matched word by word.
STOPWORDS = frozenset({
    "a", "an", "the", "of", "in", "on", "at", "to", "for", "by", "with", "from", "and", "or", "but",
    "is", "are", "was", "were", "be", "been", "will", "would", "which", "who", "whom", "what", "when",
    "where", "why", "how", "that", "this", "these", "those", "it", "its", "as", "into", "than", "then",
    "there", "their", "they", "he", "she", "his", "her", "has", "have", "had", "do", "does", "did",
    "not", "no", "yes", "before", "after", "during", "between", "under", "over", "about", "per",
})  # fmt: skip


@dataclass(frozen=True)
class Chunk:
    """A passage of one article, dated by the article's publish day (the day it became public)."""

    chunk_id: str
    article_id: str
    publish_date: date
    text: str


class Retriever(Protocol):
    def search(self, query: str, cap: date, k: int) -> list[Chunk]:
        """Up to ``k`` chunks matching ``query``, none published after ``cap``, best first."""
        ...


def query_terms(text: str) -> list[str]:
    """Folded content words of ``text`` (stopwords and one-letter words dropped), in order."""
    return [word for word in fold(text).split() if len(word) > 1 and word not in STOPWORDS]


@dataclass(frozen=True)
class SearchResult:
    chunks: tuple[Chunk, ...]
    dropped_after_cap: int  # chunks the backend returned past the cap (0 for a sound backend)


def search_capped(retriever: Retriever, query: str, cap: date, k: int) -> SearchResult:
    """``retriever.search``, with the cap checked again on what comes back."""
    found = retriever.search(query, cap, k)
    kept = [chunk for chunk in found if chunk.publish_date <= cap]
    return SearchResult(tuple(kept[:k]), len(found) - len(kept))


class CappedChunks:
    """Chunks in memory, ranked by BM25 over folded words; the cap filters before ranking.

    Ties are broken by publish day, then chunk id, so a search is the same on every run.
    """

    def __init__(self, chunks: Iterable[Chunk], k1: float = 1.2, b: float = 0.75) -> None:
        self._chunks = tuple(sorted(chunks, key=lambda chunk: (chunk.publish_date, chunk.chunk_id)))
        self._terms = [Counter(query_terms(chunk.text)) for chunk in self._chunks]
        self._lengths = [sum(terms.values()) for terms in self._terms]
        self._k1, self._b = k1, b

    def __len__(self) -> int:
        return len(self._chunks)

    def search(self, query: str, cap: date, k: int) -> list[Chunk]:
        visible = [i for i, chunk in enumerate(self._chunks) if chunk.publish_date <= cap]
        if not visible or k <= 0:
            return []
        # Statistics over the visible chunks only: what a search on the cap day could have seen.
        average = sum(self._lengths[i] for i in visible) / len(visible) or 1.0
        frequency = Counter(term for i in visible for term in self._terms[i])
        scored: list[tuple[float, int]] = []
        for i in visible:
            score = 0.0
            for term in set(query_terms(query)):
                count = self._terms[i].get(term, 0)
                if not count:
                    continue
                idf = math.log(1 + (len(visible) - frequency[term] + 0.5) / (frequency[term] + 0.5))
                norm = self._k1 * (1 - self._b + self._b * self._lengths[i] / average)
                score += idf * count * (self._k1 + 1) / (count + norm)
            if score > 0:
                scored.append((score, i))
        scored.sort(
            key=lambda pair: (-pair[0], self._chunks[pair[1]].publish_date, self._chunks[pair[1]].chunk_id)
        )
        return [self._chunks[i] for _, i in scored[:k]]
