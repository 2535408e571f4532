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
* partial: an organisation's distinctive part ("Northern Games" of "Northern Games Federation", or
  "Whitfield" of "The Whitfield School", case-sensitive) counts as the answer; parts made only of generic
  words ("School", "National Party") never do (almanac.core.names, shared with ``almanac check``).

Known misses: surnames shorter than ``min_alias_chars``, family-name-first names ("Xi Jinping" gives
the alias "Jinping"), nicknames, translations, and paraphrases ("the French capital" for "Paris").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import permutations

from rapidfuzz import fuzz

from almanac.core.names import acronym, distinctive_parts, person_like, surnames
from almanac.core.text import contains_phrase, fold


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
    kind: str  # "exact" | "folded" | "alias" | "partial" | "fuzzy"
    field: str
    matched: str


@dataclass(frozen=True)
class _Alias:
    text: str
    acronym: bool


# Classes whose multi-word answers are commonly shortened to initials; None means "not classified".
_ACRONYM_CLASSES = frozenset(("organization", "country", "location", "team", "brand", None))
# Classes whose names are also cited by a distinctive part ("Northern Games" for the federation).
_PART_CLASSES = frozenset(("organization", "team", "brand"))
_PARENTHESISED = re.compile(r"^(.*?)\s*\(([A-Z][A-Za-z.&]{1,9})\)$")


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
    if answer_class == "name" and person_like(answer):
        candidates.extend(_Alias(surname, False) for surname in surnames(words))
    if answer_class in _ACRONYM_CLASSES:
        initials = acronym(words)
        if initials is not None:
            candidates.append(_Alias(initials, True))

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
        hit = _partial_hit(answer, fields, answer_class)
        if hit is not None:
            return hit
    if config.fuzzy_threshold <= 100:
        for field, text in fields:
            window = _fuzzy_match(folded_answer, text, config.fuzzy_threshold)
            if window is not None:
                return LeakHit("fuzzy", field, window)
    return None


def _partial_hit(answer: str, fields: list[tuple[str, str]], answer_class: str | None) -> LeakHit | None:
    """A distinctive part of an organisation's name (almanac.core.names.distinctive_parts)."""
    if answer_class not in _PART_CLASSES:
        return None
    parts, single = distinctive_parts(answer)
    for part in parts:
        for field, text in fields:
            if contains_phrase(text, part):
                return LeakHit("partial", field, part)
    if single is not None:
        pattern = _word_bounded(single)  # case-sensitive: the proper name, not a common word
        for field, text in fields:
            if pattern.search(text):
                return LeakHit("partial", field, single)
    return None
