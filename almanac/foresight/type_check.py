"""Checking a declared answer type against the answer: a generator's label is a claim, not a fact.

A generator that writes "string (name)" for "Turnout" or "Rovers" turns a sports or election story
into a nonsense "who" question, and the class counts of the funnel go wrong with it. The rules below
are deliberately simple and explainable (each mismatch says which one failed); spaCy's entities are
read over the whole article, because a small model labels a lone capitalised word PERSON easily but
a person is normally introduced once by a full name ("Marco Bellandi ... Bellandi scored").

* name: capitalised words, no digits, no organisation or team word ("United", "Rovers", "FC",
  "Party"), and person evidence in the article: the answer is a multi-word PERSON entity, or a
  one-word answer is the first or last word of one. A one-word answer also used in lower case in the
  article ("turnout") is a common noun.
* country: one of the names in :data:`~almanac.foresight.answer_types.COUNTRIES`.
* organization, team, brand, location: not a person by the same evidence, and not a bare number.
* month: a month name, optionally with a year; color: a basic colour word.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from almanac.core.names import ORGANISATION_WORDS
from almanac.core.text import fold
from almanac.foresight.answer_types import COUNTRIES, is_month

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc

# Lower-case words inside a person's name: "Ludwig van Beethoven", "Ibn Battuta".
_PARTICLE_TEXT = "van von de der den del della di da du dos das do la le al el bin ibn ben ter ten y"
_NAME_PARTICLES = frozenset(_PARTICLE_TEXT.split())
_COLOUR_TEXT = """
    red orange yellow green blue purple violet pink brown black white grey gray gold silver beige
    maroon navy teal turquoise crimson scarlet indigo magenta cyan
"""
_COLOURS = frozenset(_COLOUR_TEXT.split())
_PERSON_CLASSES = frozenset(("organization", "team", "brand", "location"))
_DIGIT = re.compile(r"\d")
_NUMBER = re.compile(r"[-+]?[$€£]?[\d.,]+%?")


@dataclass(frozen=True)
class ArticleEntities:
    """What the type rules need from one article, computed once per article."""

    persons: tuple[tuple[str, ...], ...]  # multi-word PERSON entities as folded words, no org words
    lower_words: frozenset[str]  # words the article writes in lower case (common-noun use)


def article_entities(text: str, nlp: Language) -> ArticleEntities:
    return entities_from_doc(nlp(text))


def entities_from_doc(doc: Doc) -> ArticleEntities:
    """The person names and lower-case words of an already parsed article."""
    persons = set()
    for entity in doc.ents:
        if entity.label_ != "PERSON":
            continue
        words = tuple(fold(entity.text).split())
        # "Kessling United's" is a club however spaCy labels it; a possessive "s" is not a word.
        words = words[:-1] if len(words) > 1 and words[-1] == "s" else words
        if len(words) >= 2 and not ORGANISATION_WORDS.intersection(words):
            persons.add(words)
    lower = frozenset(token.text for token in doc if token.is_alpha and token.text.islower())
    return ArticleEntities(tuple(sorted(persons)), lower)


def _person_evidence(answer: str, entities: ArticleEntities) -> bool:
    words = tuple(fold(answer).split())
    if not words:
        return False
    if len(words) == 1:
        return any(words[0] in (person[0], person[-1]) for person in entities.persons)
    return any(_contains(person, words) for person in entities.persons)


def _contains(haystack: tuple[str, ...], needle: tuple[str, ...]) -> bool:
    size = len(needle)
    return any(haystack[i : i + size] == needle for i in range(len(haystack) - size + 1))


def _capitalised(words: Iterable[str]) -> bool:
    return all(word[:1].isupper() or word.casefold() in _NAME_PARTICLES for word in words)


def type_mismatch(answer: str, declared_class: str, entities: ArticleEntities) -> str | None:
    """Why ``answer`` is not of ``declared_class`` (a detail for the reject row), or None if it fits.

    Classes without a rule here (title, currency, date, numeric, range, other) always fit.
    """
    answer = " ".join(answer.split())
    words = answer.split()
    folded = fold(answer).split()
    if declared_class == "name":
        if not words or _DIGIT.search(answer) or not _capitalised(words):
            return f"{answer!r} is not written as a name (capitalised words, no digits)"
        marker = sorted(ORGANISATION_WORDS.intersection(folded))
        if marker:
            return f"{answer!r} contains {marker[0]!r}, a word of organisations and teams, not people"
        if fold(answer) in COUNTRIES:
            return f"{answer!r} is a country, not a person"
        if len(words) == 1 and answer.casefold() in entities.lower_words:
            return f"{answer!r} is a common noun (the article writes {answer.casefold()!r})"
        if not _person_evidence(answer, entities):
            return f"{answer!r} is not a person named in the article (no full-name PERSON entity)"
        return None
    if declared_class == "country":
        return None if fold(answer) in COUNTRIES else f"{answer!r} is not in the country list"
    if declared_class in _PERSON_CLASSES:
        if _NUMBER.fullmatch(answer):
            return f"{answer!r} is a number"
        if not any(word[:1].isupper() for word in words):
            return f"{answer!r} is not a proper name (no capitalised word)"
        if _person_evidence(answer, entities):
            return f"{answer!r} is a person named in the article, not of class {declared_class!r}"
        return None
    if declared_class == "month":
        return None if is_month(answer) else f"{answer!r} is not a month"
    if declared_class == "color":
        return None if fold(answer) in _COLOURS else f"{answer!r} is not a colour"
    return None
