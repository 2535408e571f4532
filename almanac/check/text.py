"""Does an answer appear in a text? Whole tokens only, after folding case and diacritics.

Three ways to appear: the answer's tokens in a row (exact after folding); a run of as many tokens that is
nearly the answer (fuzzy, for spelling variants and inflections such as "Whitcombe's"); or, for a person,
the surname alone. Matching never looks inside a word, so "Alder" is not found in "Alderney".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from rapidfuzz.fuzz import ratio

TOKEN = re.compile(r"\w+", re.UNICODE)
LEADING_ARTICLES = frozenset({"the", "a", "an"})
FUZZY_MIN_CHARS = 5  # shorter answers are matched exactly: one letter off is another word
FUZZY_THRESHOLD = 90.0
PERSON_CLASSES = frozenset({"name", "person"})
MIN_SURNAME_CHARS = 3


def fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not unicodedata.combining(char)).casefold()


def tokens(text: str) -> list[str]:
    return TOKEN.findall(fold(text))


def answer_tokens(answer: str) -> tuple[str, ...]:
    """The answer's tokens without a leading article: "The Hague" is revealed by "Hague" alone."""
    found = tokens(answer)
    while len(found) > 1 and found[0] in LEADING_ARTICLES:
        found = found[1:]
    return tuple(found)


def is_person(answer_class: str | None, answer_type: str | None) -> bool:
    if (answer_class or "").strip().casefold() in PERSON_CLASSES:
        return True
    return "person" in (answer_type or "").casefold()


def find_answer(answer: str, text: str, person: bool) -> str | None:
    """How the answer appears in ``text`` ("exact", "fuzzy: ...", "surname: ..."), or None."""
    wanted = answer_tokens(answer)
    if not wanted:
        return None
    words = tokens(text)
    size = len(wanted)
    windows = [tuple(words[start : start + size]) for start in range(len(words) - size + 1)]
    if wanted in windows:
        return "exact"
    joined = " ".join(wanted)
    if len(joined) >= FUZZY_MIN_CHARS:
        for window in windows:
            candidate = " ".join(window)
            if ratio(joined, candidate) >= FUZZY_THRESHOLD:
                return f"fuzzy: {candidate!r}"
    if person and size >= 2 and len(wanted[-1]) >= MIN_SURNAME_CHARS and wanted[-1] in words:
        return f"surname: {wanted[-1]!r}"
    return None


def ngram_index(answers: Sequence[tuple[str, tuple[str, ...]]]) -> dict[tuple[str, ...], list[str]]:
    """Answer token tuples -> ids of the questions with that answer (for the cross-question scan)."""
    index: dict[tuple[str, ...], list[str]] = {}
    for item_id, wanted in answers:
        if wanted:
            index.setdefault(wanted, []).append(item_id)
    return index


def answers_in(text: str, index: dict[tuple[str, ...], list[str]], longest: int) -> set[str]:
    """Ids whose answer appears (exactly, whole tokens) in ``text``: one pass over its n-grams."""
    words = tokens(text)
    found: set[str] = set()
    for size in range(1, longest + 1):
        for start in range(len(words) - size + 1):
            found.update(index.get(tuple(words[start : start + size]), ()))
    return found
