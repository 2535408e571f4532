"""Text normalisation shared by the leakage checks: case- and diacritics-folded comparison."""

from __future__ import annotations

import re
import unicodedata

_NON_WORD = re.compile(r"[^\w]+")


def fold(text: str) -> str:
    """Casefold, strip diacritics, turn punctuation runs into single spaces: "Dvořák's" -> "dvorak s"."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    # ASCII has no combining marks: skipping the per-character walk halves the cost on English text.
    stripped = (
        decomposed if decomposed.isascii() else "".join(c for c in decomposed if not unicodedata.combining(c))
    )
    return _NON_WORD.sub(" ", stripped).strip()


def contains_phrase(haystack: str, needle: str) -> bool:
    """Whole-word occurrence of ``needle`` in ``haystack``, both folded ("Paris" is not in "Parisian")."""
    folded_needle = fold(needle)
    if not folded_needle:
        return False
    return f" {folded_needle} " in f" {fold(haystack)} "
