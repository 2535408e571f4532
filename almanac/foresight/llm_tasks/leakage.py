"""The ``leakage`` task: item, edit parser, and the offline edit.

Offline, every mention of the answer in the background and resolution criteria — the full answer,
each capitalised word of it (a surname, a city in "New York"), and its acronym ("WHO" for World
Health Organization) — is replaced by a generic stand-in for its type; the title comes back as it was
(outcome details are removed from every title afterwards by a rule pass, almanac.core.outcomes, whatever
the backend) and the answer is never touched.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date

from almanac.core.date_mentions import dates_named
from almanac.core.nlp import PLACEHOLDER
from almanac.foresight.llm_tasks.questions import GeneratedQuestion, multiline, question_variables
from almanac.llm.parsing import (
    choice,
    collapse,
    one_tag,
    optional_tag,
)
from almanac.llm.registry import Task, TaskItem, register, reply_schema, text_field


@dataclass(frozen=True)
class LeakageEdit:
    leak_found: bool
    background: str
    resolution_criteria: str
    question_title: str = ""  # the title with outcome details removed; "" = unchanged


def _title_edit(block: str, variables: Mapping[str, str]) -> str:
    """The edited title, or "" when the model gave none or its edit lost a date the original names
    (the deadline is what the dates stage reads; a title edit may not move it)."""
    original = variables.get("question_title", "")
    edited = collapse(optional_tag(block, "question_title"))
    if not edited or edited == original:
        return ""
    anchor = date(2000, 1, 1)
    if any(mention.text not in edited for mention in dates_named(original, anchor)):
        return ""
    return edited


def parse_leakage(text: str, variables: Mapping[str, str]) -> LeakageEdit:
    block = one_tag(text, "edited")
    leak = choice(one_tag(block, "leak_found"), ("yes", "no"), "<leak_found>") == "yes"
    if not leak:
        # Nothing was found, so nothing may change: keep the originals byte for byte.
        return LeakageEdit(False, variables["background"], variables["resolution_criteria"])
    return LeakageEdit(
        True,
        collapse(one_tag(block, "background")),
        multiline(one_tag(block, "resolution_criteria")),
        _title_edit(block, variables),
    )


def leakage_item(question_id: str, question: GeneratedQuestion) -> TaskItem:
    variables = question_variables(question)
    del variables["question_start_date"], variables["resolution_date"]
    return TaskItem(question_id, variables)


_SMALL_WORDS = frozenset({"the", "of", "and", "for", "in", "on", "at", "de", "la", "le", "van", "von", "da"})


_ARTICLE = r"(?:\b(?:[Aa]n?|[Tt]he)\s+)?"  # "a WHO report" -> "a certain organization report"


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
        f"<edited>\n<leak_found>{found}</leak_found>\n"
        f"<question_title>{variables['question_title']}</question_title>\n<background>{new_background}</background>\n"
        f"<resolution_criteria>{new_criteria}</resolution_criteria>\n</edited>"
    )


LEAKAGE_SCHEMA = reply_schema(
    edited=reply_schema(
        leak_found=text_field("yes", "no"), background=text_field(), resolution_criteria=text_field()
    )
)
LEAKAGE = register(
    Task("leakage", item=leakage_item, parse=parse_leakage, offline=leakage, schema=LEAKAGE_SCHEMA)
)
