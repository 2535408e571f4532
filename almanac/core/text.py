"""Text measures shared by stages: case- and diacritics-folded comparison, and script-aware word counts."""

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


# Scripts written without spaces between words: each Han ideograph (with the iteration marks U+3005-U+3007)
# and each Hiragana/Katakana character counts as one word. A Chinese word averages under two
# characters, so a threshold in words admits CJK text of roughly the same length in meaning as English.
# Hangul is left to whitespace: Korean separates its words (eojeol) with spaces.
_CJK_CHAR = re.compile(
    "[\u3005-\u3007\u3041-\u3096\u309d-\u309f\u30a1-\u30fa\u30fc-\u30ff\u31f0-\u31ff"
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f]"
)
# CJK and fullwidth punctuation separate words like spaces do; otherwise "東京。" would leave "。" as a word.
_CJK_SEPARATOR = re.compile(
    "[\u3000-\u3004\u3008-\u303f\u30fb\uff01-\uff0f\uff1a-\uff20\uff3b-\uff40\uff5b-\uff65]"
)


def word_count(text: str) -> int:
    """Words of any script: one per CJK (Han/Kana) character, plus the whitespace tokens of the rest.

    "The 東京 office" counts 4 (The, 東, 京, office). On text with no CJK characters or punctuation
    this is exactly ``len(text.split())``, so English counts (and thresholds) are unchanged.
    """
    if text.isascii():
        return len(text.split())
    cjk = len(_CJK_CHAR.findall(text))
    if not cjk and not _CJK_SEPARATOR.search(text):
        return len(text.split())
    rest = _CJK_SEPARATOR.sub(" ", _CJK_CHAR.sub(" ", text))
    return cjk + len(rest.split())
