"""Deterministic re-scan for answer leakage after the LLM editing pass (leakage step b).

The editor model is asked to remove the answer from the background and resolution criteria, but
nothing guarantees it did. This scan looks for the answer in each question field in four ways,
cheapest and surest first, and the stage drops any question with a hit.

False-positive risks, accepted because a dropped question costs less than a leaked one:

* alias: a person's surname is a common word or another person's name ("Green", "Rice", "Young"),
  and an organisation's acronym collides with an unrelated one ("ECB", "PSG"); acronyms are at least
  matched case-sensitively, so "WHO" does not fire on "who".
* fuzzy: each answer word is compared with one whole word of the text (never with a piece of one),
  so names differing in a letter or an ending count as the same ("Okonjo" / "Okonjos", "Harbour" /
  "Harbor"), and with the default 90 a word of five letters tolerates one added letter but no
  substitution, a word of ten about one edit. The text's words may come in any order: "Okonjo,
  Halima" fires for "Halima Okonjo", which is wanted, but so would a list holding both words side by
  side. A word of the text cut short ("Par-led" for "Party") does not match.
* alias: only a person's name gives a surname alias; a name that starts with "The" or holds an
  organisation word ("The Whitfield School") is not treated as a person whatever its declared type.

Known misses: surnames shorter than ``min_alias_chars``, family-name-first names ("Xi Jinping" gives
the alias "Jinping"), nicknames, translations, and paraphrases ("the French capital" for "Paris").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import permutations

from rapidfuzz import fuzz

from almanac.core.text import contains_phrase, fold
from almanac.foresight.type_check import has_organisation_word


@dataclass(frozen=True)
class LeakageScanConfig:
    fuzzy_threshold: float = 90.0  # rapidfuzz score 0-100; above 100 turns the fuzzy check off
    check_aliases: bool = True
    min_alias_chars: int = 4  # shorter surnames and "The"-less names are too ambiguous to match
    fields: tuple[str, ...] = ("question_title", "background", "resolution_criteria")

    def __post_init__(self) -> None:
        if self.fuzzy_threshold < 0:
            raise ValueError(f"leakage.fuzzy_threshold must be >= 0, got {self.fuzzy_threshold}")
        if self.min_alias_chars < 1:
            raise ValueError(f"leakage.min_alias_chars must be >= 1, got {self.min_alias_chars}")


@dataclass(frozen=True)
class LeakHit:
    kind: str  # "exact" | "folded" | "alias" | "fuzzy"
    field: str
    matched: str


@dataclass(frozen=True)
class _Alias:
    text: str
    acronym: bool


_PARTICLES = frozenset(
    [
        "van",
        "von",
        "de",
        "der",
        "den",
        "del",
        "della",
        "di",
        "da",
        "du",
        "dos",
        "das",
        "do",
        "la",
        "le",
        "al",
        "el",
        "bin",
        "ibn",
        "ben",
        "ter",
        "ten",
        "st",
        "st.",
    ]
)
_NAME_SUFFIXES = frozenset(["jr", "jr.", "sr", "sr.", "ii", "iii", "iv", "phd", "md"])
_ACRONYM_STOPWORDS = frozenset(["of", "the", "and", "for", "in", "on", "at", "to", "a", "an", "&", "de"])
# Classes whose multi-word answers are commonly shortened to initials; None means "not classified".
_ACRONYM_CLASSES = frozenset(("organization", "country", "location", "team", "brand", None))
_PARENTHESISED = re.compile(r"^(.*?)\s*\(([A-Z][A-Za-z.&]{1,9})\)$")


def _surnames(words: list[str]) -> list[str]:
    while len(words) > 1 and words[-1].casefold() in _NAME_SUFFIXES:
        words = words[:-1]
    if len(words) < 2:
        return []
    first_particle = len(words) - 1
    while first_particle > 1 and words[first_particle - 1].casefold() in _PARTICLES:
        first_particle -= 1
    with_particles = " ".join(words[first_particle:])
    return [with_particles, words[-1]] if first_particle < len(words) - 1 else [words[-1]]


def _person_like(answer: str) -> bool:
    """Surnames are made only for what reads as a person's name, whatever type was declared."""
    words = answer.split()
    return bool(words) and words[0].casefold() != "the" and not has_organisation_word(answer)


def _acronym(words: list[str]) -> str | None:
    significant = [word for word in words if word.casefold() not in _ACRONYM_STOPWORDS]
    if len(significant) < 2 or not all(word[0].isalpha() and word[0].isupper() for word in significant):
        return None
    return "".join(word[0] for word in significant).upper()


def _aliases(answer: str, answer_class: str | None, min_chars: int) -> list[_Alias]:
    answer = " ".join(answer.split())
    seen = {fold(answer)}
    candidates: list[_Alias] = []
    spelled_out = _PARENTHESISED.match(answer)
    if spelled_out:  # "Environment Protection Agency (EPA)": both halves are aliases
        answer = spelled_out.group(1)
        candidates.append(_Alias(answer, False))
        candidates.append(_Alias(spelled_out.group(2).replace(".", ""), True))
    words = answer.split()
    if len(words) > 1 and words[0].casefold() == "the":
        words = words[1:]
        candidates.append(_Alias(" ".join(words), False))
    if answer_class == "name" and _person_like(answer):
        candidates.extend(_Alias(surname, False) for surname in _surnames(words))
    if answer_class in _ACRONYM_CLASSES:
        acronym = _acronym(words)
        if acronym is not None:
            candidates.append(_Alias(acronym, True))

    kept: list[_Alias] = []
    for alias in candidates:
        key = alias.text if alias.acronym else fold(alias.text)
        if key in seen or (not alias.acronym and len(key) < min_chars):
            continue
        seen.add(key)
        kept.append(alias)
    return kept


def answer_aliases(answer: str, answer_class: str | None, min_chars: int = 4) -> list[str]:
    """Shorter forms of ``answer`` that would still give it away, in a fixed order.

    "The" dropped ("The Rolling Stones" -> "Rolling Stones"), a person's surname with and without
    particles ("Ludwig van Beethoven" -> "van Beethoven", "Beethoven"), and the initials of a
    multi-word organisation-like name ("Bank of England" -> "BE"); never the answer itself.
    Acronyms are exempt from ``min_chars`` because they are matched case-sensitively.
    """
    return [alias.text for alias in _aliases(answer, answer_class, min_chars)]


def _word_bounded(needle: str, flags: int = 0) -> re.Pattern[str]:
    return re.compile(rf"(?<!\w){re.escape(needle)}(?!\w)", flags)


def _acronym_pattern(acronym: str) -> re.Pattern[str]:
    # "EPA" also as "E.P.A."; case-sensitive so that "WHO" does not match "who".
    dotted = r"\.?".join(re.escape(letter) for letter in acronym)
    return re.compile(rf"(?<![\w.]){dotted}\.?(?!\w)")


# Fuzzy matching tries every order of the answer's words up to this many words, in order beyond it.
_MAX_PERMUTED_WORDS = 4


def _fuzzy_match(folded_answer: str, text: str, threshold: float) -> str | None:
    """The text's words that match the answer word for word (any order), each at ``threshold``.

    Whole words only: a window holds as many text words as the answer has, and each answer word is
    scored against one of them, so a word cut short ("par" in "Par-led") cannot pass for "party".
    A lone "s" (a folded possessive) is not a word of the answer.
    """
    answer_words = [word for word in folded_answer.split() if word != "s"]
    if not answer_words:
        return None
    words = fold(text).split()
    size = len(answer_words)
    orders = (
        list(dict.fromkeys(permutations(answer_words)))
        if size <= _MAX_PERMUTED_WORDS
        else [tuple(answer_words)]
    )
    for begin in range(len(words) - size + 1):
        window = words[begin : begin + size]
        for order in orders:
            pairs = zip(order, window, strict=True)
            if all(fuzz.ratio(wanted, found) >= threshold for wanted, found in pairs):
                return " ".join(window)
    return None


def find_leak(
    answer: str,
    texts: Mapping[str, str],
    answer_class: str | None,
    config: LeakageScanConfig,
) -> LeakHit | None:
    """The first sign of ``answer`` in the configured fields of ``texts``, or None if clean.

    Kinds are tried in order over all fields: exact (verbatim, word-bounded), folded (case and
    diacritics ignored), alias (see ``answer_aliases``), fuzzy (rapidfuzz, word by word over windows
    of the answer's word count; see ``_fuzzy_match``). Missing fields count as empty.
    """
    answer = answer.strip()
    folded_answer = fold(answer)
    if not folded_answer:
        return None
    fields = [(field, texts.get(field) or "") for field in config.fields]

    exact = _word_bounded(answer)
    for field, text in fields:
        if exact.search(text):
            return LeakHit("exact", field, answer)
    for field, text in fields:
        if contains_phrase(text, answer):
            return LeakHit("folded", field, folded_answer)
    if config.check_aliases:
        for alias in _aliases(answer, answer_class, config.min_alias_chars):
            pattern = _acronym_pattern(alias.text) if alias.acronym else None
            for field, text in fields:
                found = pattern.search(text) if pattern else contains_phrase(text, alias.text)
                if found:
                    return LeakHit("alias", field, alias.text)
    if config.fuzzy_threshold <= 100:
        for field, text in fields:
            window = _fuzzy_match(folded_answer, text, config.fuzzy_threshold)
            if window is not None:
                return LeakHit("fuzzy", field, window)
    return None
