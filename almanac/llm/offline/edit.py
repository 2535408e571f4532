"""Offline leakage editing and date repair.

Leakage: every mention of the answer in the background and resolution criteria — the full answer,
each capitalised word of it (a surname, a city in "New York"), and its acronym ("WHO" for World
Health Organization) — is replaced by a generic stand-in for its type; title and answer are never
touched. Date repair: the earliest calendar date mentioned in an article sentence that names the
answer (relative dates read against the publish date); the publish date when no sentence dates it;
``unknown`` when the article does not contain the answer at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, timedelta

from almanac.core.text import contains_phrase
from almanac.llm.offline.nlp import PLACEHOLDER, parse, resolve_date

_SMALL_WORDS = frozenset({"the", "of", "and", "for", "in", "on", "at", "de", "la", "le", "van", "von", "da"})
_ARTICLE = r"(?:\b(?:[Aa]n?|[Tt]he)\s+)?"  # "a WHO report" -> "a certain organization report"
_LOOKBACK_DAYS = 366  # a date mentioned in an article further back than this is background, not the event


def answer_patterns(answer: str, answer_type: str = "") -> list[re.Pattern[str]]:
    """Full answer first, then its significant words and its acronym; case-insensitive except acronyms.

    For a person only the surname counts as a part: a shared given name ("John") identifies nobody.
    """
    words = answer.split()
    patterns = [re.compile(rf"{_ARTICLE}(?<!\w){re.escape(answer)}(?:'s)?(?!\w)", re.IGNORECASE)]
    parts = words[-1:] if answer_type == "string (name)" else words
    for word in parts if len(words) > 1 else []:
        if word[:1].isupper() and word.lower() not in _SMALL_WORDS and len(word) > 2:
            patterns.append(re.compile(rf"{_ARTICLE}(?<!\w){re.escape(word)}(?:'s)?(?!\w)", re.IGNORECASE))
    initials = "".join(word[0] for word in words if word.lower() not in _SMALL_WORDS)
    if len(initials) >= 2 and initials.isupper():
        patterns.append(re.compile(rf"{_ARTICLE}(?<!\w){initials}(?!\w)"))
    return patterns


def mask(text: str, answer: str, answer_type: str, placeholder: str) -> str:
    for pattern in answer_patterns(answer, answer_type):
        text = pattern.sub(placeholder, text)
    return text


def leakage(variables: Mapping[str, str], model: str) -> str:
    del model
    answer, background, criteria = (
        variables["answer"],
        variables["background"],
        variables["resolution_criteria"],
    )
    placeholder = PLACEHOLDER.get(variables["answer_type"], "a certain entity")
    new_background = mask(background, answer, variables["answer_type"], placeholder)
    new_criteria = mask(criteria, answer, variables["answer_type"], placeholder)
    found = "yes" if (new_background, new_criteria) != (background, criteria) else "no"
    return (
        f"<edited>\n<leak_found>{found}</leak_found>\n<background>{new_background}</background>\n"
        f"<resolution_criteria>{new_criteria}</resolution_criteria>\n</edited>"
    )


def date_repair(variables: Mapping[str, str], model: str) -> str:
    published = date.fromisoformat(variables["publish_date"])
    answer = variables["answer"]
    doc = parse(variables["article_text"], model)
    sentences = [sentence for sentence in doc.sents if contains_phrase(sentence.text, answer)]
    if not sentences:
        return "<evidence>No sentence names the answer.</evidence>\n<earliest_date>unknown</earliest_date>"
    earliest, evidence = published, "No sentence naming the answer gives an earlier date than publication."
    for sentence in sentences:
        for ent in sentence.ents:
            if ent.label_ != "DATE":
                continue
            day = resolve_date(ent.text, published)
            if day is not None and published - timedelta(days=_LOOKBACK_DAYS) <= day < earliest:
                earliest = day
                evidence = f'The article dates it "{ent.text}": {" ".join(sentence.text.split())[:300]}'
    return f"<evidence>{evidence}</evidence>\n<earliest_date>{earliest.isoformat()}</earliest_date>"
