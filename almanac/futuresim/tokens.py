"""Tokens for chunking and BM25: the script-aware word count of almanac.core.text, with spans.

A token is a whitespace-separated run of text, except that each CJK (Han/Kana) character is a token of its
own and CJK punctuation separates like a space: the same rule as :func:`almanac.core.text.word_count`, so a
chunk of 512 tokens holds about as much meaning in Chinese as in English, and a Chinese article with no
spaces still chunks to bounded size. Runs longer than ``MAX_TOKEN_CHARS`` (scripts written without spaces
that are not CJK, such as Thai, or URL blobs) count one token per ``MAX_TOKEN_CHARS`` characters, so a chunk
never exceeds ``chunk_tokens * MAX_TOKEN_CHARS`` characters. No model tokenizer: it would tie the corpus to
one model's vocabulary and need its files at build time; this count is exact, offline and stable.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from almanac.core.text import fold

TOKENIZER = "almanac-words-v1"  # recorded in the index manifest and each chunk row's provenance
MAX_TOKEN_CHARS = 32
_CJK = (
    "\u3005-\u3007\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
)
_CJK_SEPARATORS = "\u3000-\u3004\u3008-\u303f\u30fb\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65"
_TOKEN = re.compile(f"[{_CJK}]|[^\\s{_CJK}{_CJK_SEPARATORS}]{{1,{MAX_TOKEN_CHARS}}}")


def token_spans(text: str) -> Iterator[tuple[int, int]]:
    """(start, end) character offsets of each token of ``text``, in order."""
    for match in _TOKEN.finditer(text):
        yield match.start(), match.end()


def chunk_spans(text: str, chunk_tokens: int) -> list[tuple[int, int]]:
    """Consecutive spans of ``chunk_tokens`` tokens (the last one shorter), from a chunk's first token to
    its last, so whitespace inside a chunk is kept and none is lost between chunks."""
    if chunk_tokens < 1:
        raise ValueError(f"chunk_tokens must be >= 1, got {chunk_tokens}")
    spans: list[tuple[int, int]] = []
    start = end = -1
    count = 0
    for token_start, token_end in token_spans(text):
        if count == 0:
            start = token_start
        end = token_end
        count += 1
        if count == chunk_tokens:
            spans.append((start, end))
            count = 0
    if count:
        spans.append((start, end))
    return spans


def search_terms(text: str) -> list[str]:
    """The terms BM25 indexes and queries: tokens of the folded text (case, diacritics, punctuation), so
    "Dvořák's" matches "dvorak s" and each Han character of a Chinese query matches on its own."""
    folded = fold(text)
    return [folded[start:end] for start, end in token_spans(folded)]
