"""Document-level quality measures for news articles, in the spirit of OBELICS' web-document filters.

MIRAI cleans the articles behind its events following OBELICS: documents with too few words, too
much repetition or too many special characters are dropped. The four measures are defined here
precisely so that a threshold in ``params.yaml`` means one thing:

* :func:`word_count`: whitespace tokens, and one word per Chinese/Japanese character
  (:func:`almanac.core.text.word_count`, shared with the CC-News filters).
* :func:`char_repetition`: the share of character 10-gram occurrences that repeat an earlier one.
* :func:`word_repetition`: the same over word 5-grams; a duplicated line or paragraph of five words
  or more makes almost all of its 5-grams repeats, so this also catches duplicated boilerplate.
* :func:`special_char_ratio`: the share of non-whitespace characters that are neither letters, nor
  digits, nor ordinary prose punctuation.
* :func:`flagged_word_ratio`: the share of words that are on a flagged-words list
  (:func:`load_flagged_words`).

The same measures serve both levels of cleaning: each paragraph (:mod:`almanac.gdelt.paragraphs`), then
the text made of the paragraphs that were kept.
"""

from __future__ import annotations

import unicodedata
from pathlib import Path
from typing import Final, NamedTuple

from almanac.core.text import word_count as shared_word_count

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
    flagged_word_ratio: float = 0.0


def word_count(text: str) -> int:
    return shared_word_count(text)


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


def bare_word(token: str) -> str:
    """A whitespace token casefolded, without the punctuation around it ("Damn!" -> "damn")."""
    start, end = 0, len(token)
    while start < end and not token[start].isalnum():
        start += 1
    while end > start and not token[end - 1].isalnum():
        end -= 1
    return token[start:end].casefold()


def flagged_word_ratio(text: str, flagged: frozenset[str]) -> float:
    """Words on the ``flagged`` list / words (whitespace tokens), 0.0 for a blank text or an empty list.

    A token matches when, casefolded and stripped of leading and trailing punctuation, it equals an
    entry; entries are single casefolded words (:func:`load_flagged_words`), so a flagged word inside a
    longer word ("Scunthorpe") does not match.
    """
    tokens = text.split()
    if not tokens or not flagged:
        return 0.0
    return sum(bare_word(token) in flagged for token in tokens) / len(tokens)


def load_flagged_words(path: Path) -> frozenset[str]:
    """The words of a flagged-words list file: UTF-8, one word per line, ``#`` starts a comment.

    Blank lines and comments are ignored; entries are casefolded. An entry with inner whitespace or
    no letter or digit can never match a single token, so it is refused rather than silently ignored.
    """
    words: set[str] = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        entry = line.split("#", 1)[0].strip()
        if not entry:
            continue
        if len(entry.split()) > 1 or bare_word(entry) != entry.casefold():
            raise ValueError(f"{path}:{number}: {entry!r} is not a single word (one word per line)")
        words.add(entry.casefold())
    return frozenset(words)


def measure(text: str, flagged: frozenset[str] = frozenset()) -> DocQuality:
    return DocQuality(
        word_count(text),
        char_repetition(text),
        word_repetition(text),
        special_char_ratio(text),
        flagged_word_ratio(text, flagged),
    )
