"""Document-level quality measures for news articles, in the spirit of OBELICS' web-document filters.

MIRAI cleans the articles behind its events following OBELICS: documents with too few words, too
much repetition or too many special characters are dropped. The four measures are defined here
precisely so that a threshold in ``params.yaml`` means one thing:

* :func:`word_count`: the number of whitespace-separated tokens (as ``str.split()`` splits).
* :func:`char_repetition`: the share of character 10-gram occurrences that repeat an earlier one.
* :func:`word_repetition`: the same over word 5-grams; a duplicated line or paragraph of five words
  or more makes almost all of its 5-grams repeats, so this also catches duplicated boilerplate.
* :func:`special_char_ratio`: the share of non-whitespace characters that are neither letters, nor
  digits, nor ordinary prose punctuation.

Not done here: OBELICS' paragraph-level pass (dropping bad paragraphs and keeping the rest) and the
flagged-words list; a document is kept or rejected as a whole.
"""

from __future__ import annotations

import unicodedata
from typing import Final, NamedTuple

CHAR_NGRAM: Final = 10
WORD_NGRAM: Final = 5

# Punctuation that ordinary news prose is made of; every other non-letter, non-digit, non-space
# character (#, |, *, @, <, >, {, }, emoji, box drawing, ...) counts as special.
PROSE_PUNCTUATION: Final = frozenset(".,;:!?'\"()-%$€£/&\u2018\u2019\u201c\u201d\u2013\u2014\u2026")


class DocQuality(NamedTuple):
    word_count: int
    char_repetition: float
    word_repetition: float
    special_char_ratio: float


def word_count(text: str) -> int:
    return len(text.split())


def repeated_share(grams: list[str] | list[tuple[str, ...]]) -> float:
    """``(occurrences - distinct) / occurrences``: the share of n-gram occurrences whose n-gram already
    occurred earlier in the sequence; 0.0 for an empty sequence.

    A text whose second half copies its first half scores about 0.5; a text made of one n-gram
    repeated many times approaches 1.0.
    """
    if not grams:
        return 0.0
    return (len(grams) - len(set(grams))) / len(grams)


def char_repetition(text: str, n: int = CHAR_NGRAM) -> float:
    """:func:`repeated_share` of the overlapping character ``n``-grams of the text, after every run of
    whitespace is collapsed to one space and the ends stripped (layout is not content). A text
    shorter than ``n`` characters has no n-grams and scores 0.0.
    """
    flat = " ".join(text.split())
    return repeated_share([flat[start : start + n] for start in range(len(flat) - n + 1)])


def word_repetition(text: str, n: int = WORD_NGRAM) -> float:
    """:func:`repeated_share` of the overlapping ``n``-grams of the casefolded whitespace tokens.
    Fewer than ``n`` tokens: no n-grams, 0.0.
    """
    words = text.casefold().split()
    return repeated_share([tuple(words[start : start + n]) for start in range(len(words) - n + 1)])


def special_char_ratio(text: str) -> float:
    """Special characters / non-whitespace characters, 0.0 for a blank text.

    A character is special unless it is whitespace (not counted at all), a letter or a number
    (Unicode categories L* and N*, so accented and non-Latin scripts are ordinary), or one of
    :data:`PROSE_PUNCTUATION`.
    """
    counted = special = 0
    for char in text:
        if char.isspace():
            continue
        counted += 1
        if char not in PROSE_PUNCTUATION and unicodedata.category(char)[0] not in "LN":
            special += 1
    return special / counted if counted else 0.0


def measure(text: str) -> DocQuality:
    return DocQuality(
        word_count(text), char_repetition(text), word_repetition(text), special_char_ratio(text)
    )
