"""Does an answer appear in a text? Whole tokens only, after folding case and diacritics.

Five ways to appear: the answer's tokens in a row (exact after folding); a run of as many tokens that is
nearly the answer (fuzzy, for spelling variants and inflections such as "Whitcombe's"); for a person, the
surname alone; for a multi-word name that is not a person, its initials (case-sensitive, "NGF" or "N.G.F."
for "Northern Games Federation"); for an organisation, a distinctive part of its name ("Northern Games",
or a first word that is a proper name, "Brennford" of "Brennford Grammar School", case-sensitive). Matching
never looks inside a word, so "Alder" is not found in "Alderney".

Which names are persons, and which parts of a name are distinctive, is almanac.core.names: the same rules
as the pipeline's leakage re-scan, so "School" is never a surname of "The Cathedral School" here either.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from rapidfuzz.fuzz import ratio

from almanac.core.months import MONTH_NUMBERS
from almanac.core.names import acronym, distinctive_parts, person_like, without_article

TOKEN = re.compile(r"\w+", re.UNICODE)
LEADING_ARTICLES = frozenset({"the", "a", "an"})
FUZZY_MIN_CHARS = 5  # shorter answers are matched exactly: one letter off is another word
FUZZY_THRESHOLD = 90.0
PERSON_CLASSES = frozenset({"name", "person"})
ORGANISATION_CLASSES = frozenset({"organization", "organisation", "team", "brand"})
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


def is_organisation(answer_class: str | None, answer_type: str | None) -> bool:
    if (answer_class or "").strip().casefold() in ORGANISATION_CLASSES:
        return True
    kind = (answer_type or "").casefold()
    return any(name in kind for name in ORGANISATION_CLASSES)


def _acronym_pattern(initials: str) -> re.Pattern[str]:
    dotted = r"\.?".join(re.escape(letter) for letter in initials)
    return re.compile(rf"(?<![\w.]){dotted}\.?(?!\w)")


def _proper_word(word: str) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(word)}(?!\w)")


def find_answer(answer: str, text: str, person: bool, organisation: bool = False) -> str | None:
    """How the answer appears in ``text`` ("exact", "fuzzy: ...", "surname: ...", "acronym: ...",
    "partial: ..."), or None. ``person`` and ``organisation`` are the declared class; a declared person
    whose name reads as an institution ("The Cathedral School") gets no surname alias."""
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
    person = person and person_like(answer)
    if person and size >= 2 and len(wanted[-1]) >= MIN_SURNAME_CHARS and wanted[-1] in words:
        return f"surname: {wanted[-1]!r}"
    if not person:
        initials = acronym(without_article(answer.split()))
        if initials is not None and _acronym_pattern(initials).search(text):
            return f"acronym: {initials!r}"
    if organisation:
        parts, single = distinctive_parts(answer)
        for part in parts:
            if _window_in(tokens(part), words):
                return f"partial: {part!r}"
        if single is not None and _proper_word(single).search(text):
            return f"partial: {single!r}"
    return None


def _window_in(wanted: list[str], words: list[str]) -> bool:
    size = len(wanted)
    return any(words[start : start + size] == wanted for start in range(len(words) - size + 1))


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


_CASED_WORD = re.compile(r"[\w'\u2019-]+")
_RUNS = re.compile(r"(?<!\S)(X|#)(?: \1)+(?!\S)")


def question_template(question: str) -> str:
    """The question (up to its first "?") with what a template fills in masked: numbers, dates and month
    names as ``#``, capitalised words after the first (names, actor codes) as ``X``, runs collapsed."""
    words = _CASED_WORD.findall(question.split("?", 1)[0])
    if not words:
        return ""

    def mask(word: str) -> str:
        if any(char.isdigit() for char in word) or word.casefold().rstrip(".") in MONTH_NUMBERS:
            return "#"
        return "X" if word[:1].isupper() else word.casefold()

    return _RUNS.sub(r"\1", " ".join([words[0].casefold(), *map(mask, words[1:])]))
