"""The ``validate`` task: item, verdict parser, and the offline validator's criteria as explicit rules.

Validation checks each criterion of the validator prompt mechanically: a future-tense title with a
dated deadline; an answer found verbatim in the article in at least one unhedged sentence; at most
three words; nothing numeric; no yes/no, either/or or list-style question. Output is the validator's
tag format.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime

from almanac.core.nlp import MONTHS, fold, parse
from almanac.core.text import contains_phrase
from almanac.foresight.llm_tasks.questions import (
    GeneratedQuestion,
    article_variables,
    iso_day,
    question_variables,
)
from almanac.llm.parsing import (
    ParseError,
    choice,
    collapse,
    one_tag,
    optional_tag,
)
from almanac.llm.registry import Task, TaskItem, register, reply_schema, text_field

VALIDATION_CRITERIA = (
    "forward_looking",
    "resolved_by_article",
    "short_answer",
    "non_numeric",
    "single_answer",
)


@dataclass(frozen=True)
class ValidationVerdict:
    valid: bool
    failed_criteria: tuple[str, ...]  # subset of VALIDATION_CRITERIA, empty iff valid
    reasons: str


def parse_validation(text: str, variables: Mapping[str, str]) -> ValidationVerdict:
    del variables
    verdict = choice(one_tag(text, "verdict"), ("valid", "invalid"), "<verdict>")
    raw_failed = one_tag(text, "failed_criteria")
    failed: tuple[str, ...] = ()
    if raw_failed.strip().lower() != "none":
        names = [part for part in re.split(r"[\s,;]+", raw_failed.strip().lower()) if part]
        failed = tuple(choice(name, VALIDATION_CRITERIA, "<failed_criteria> entry") for name in names)
    if (verdict == "valid") != (not failed):
        raise ParseError(
            "<verdict> and <failed_criteria> disagree: 'valid' needs 'none', 'invalid' needs criteria"
        )
    return ValidationVerdict(
        verdict == "valid", tuple(sorted(set(failed))), collapse(optional_tag(text, "reasons"))
    )


def validate_item(
    question_id: str,
    question: GeneratedQuestion,
    title: str | None,
    text: str,
    publish_date: date | datetime | str,
    max_chars: int = 0,
) -> TaskItem:
    variables = {
        **article_variables(title, text, max_chars),
        "publish_date": iso_day(publish_date),
        **question_variables(question),
    }
    return TaskItem(question_id, variables)


_MODALS = frozenset({"will", "would", "may", "might", "could"})  # hedges as modal verbs only, not "in May"


_HEDGES = frozenset(
    {
        "expected",
        "likely",
        "reportedly",
        "possibly",
        "plans",
        "planned",
        "proposed",
        "tentative",
        "tentatively",
        "estimated",
        "rumoured",
        "rumored",
    }
)


_BINARY_OPENERS = (
    "will ",
    "is ",
    "are ",
    "does ",
    "do ",
    "did ",
    "has ",
    "have ",
    "can ",
    "should ",
    "would ",
)


_DEADLINE = re.compile(rf"\b(by|in|before|on)\b[^?]*\b({'|'.join(MONTHS)}|\d{{4}})\b", re.IGNORECASE)


# Numbers spelled out; an answer made only of these (and "and"/"a") is a quantity, not a name.
_NUMBER_WORDS = frozenset(
    [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "twenty",
        "thirty",
        "forty",
        "fifty",
        "hundred",
        "thousand",
        "million",
        "billion",
        "trillion",
        "dozen",
        "half",
        "and",
        "a",
    ]
)


_RANGE_WORDS = frozenset(
    ["between", "above", "below", "over", "under", "around", "about", "approximately", "percent"]
)


def _numeric(answer: str) -> bool:
    words = fold(answer).split()
    return (
        any(char.isdigit() for char in answer)
        or (bool(words) and all(word in _NUMBER_WORDS for word in words))
        or any(word in _RANGE_WORDS for word in words)
    )


def failed_criteria(question: GeneratedQuestion, article: str, model: str) -> dict[str, str]:
    """Criterion name -> why it fails (empty when the question passes)."""
    failures: dict[str, str] = {}
    title = fold(question.question_title)
    if (
        " will " not in f" {title} "
        or not title.endswith("?")
        or not _DEADLINE.search(question.question_title)
    ):
        failures["forward_looking"] = "the title is not a future-tense question with a dated deadline"
    answer_words = question.answer.split()
    if not answer_words or len(answer_words) > 3:
        failures["short_answer"] = f"the answer has {len(answer_words)} words (1 to 3 allowed)"
    if question.answer_type.startswith("numeric") or _numeric(question.answer):
        failures["non_numeric"] = "the answer or its type is numeric"
    if (
        title.startswith(_BINARY_OPENERS)
        or " or " in title
        or "which of the following" in title
        or "," in question.answer
        or " and " in f" {fold(question.answer)} "
    ):
        failures["single_answer"] = "the question is yes/no, either/or, or the answer lists several items"
    if not _stated_plainly(question.answer, article, model):
        failures["resolved_by_article"] = "the article does not state the answer in an unhedged sentence"
    return failures


def _stated_plainly(answer: str, article: str, model: str) -> bool:
    if not answer or not contains_phrase(article, answer):
        return False
    for sentence in parse(article, model).sents:
        hedged = any(
            token.lower_ in _HEDGES or (token.tag_ == "MD" and token.lower_ in _MODALS) for token in sentence
        )
        if contains_phrase(sentence.text, answer) and not hedged:
            return True
    return False


def validate(variables: Mapping[str, str], model: str) -> str:
    question = GeneratedQuestion(**{name: variables[name] for name in GeneratedQuestion.__dataclass_fields__})
    failures = failed_criteria(question, variables["article_text"], model)
    if not failures:
        return (
            "<reasons>All five criteria hold under the rule checks.</reasons>\n"
            "<failed_criteria>none</failed_criteria>\n<verdict>valid</verdict>"
        )
    reasons = "; ".join(f"{name}: {why}" for name, why in sorted(failures.items()))
    return (
        f"<reasons>{reasons}.</reasons>\n<failed_criteria>{', '.join(sorted(failures))}</failed_criteria>\n"
        "<verdict>invalid</verdict>"
    )


# failed_criteria stays free text ("none" or names separated by commas), read by the same parser.
VALIDATE_SCHEMA = reply_schema(
    reasons=text_field(), failed_criteria=text_field(), verdict=text_field("valid", "invalid")
)
VALIDATE = register(
    Task("validate", item=validate_item, parse=parse_validation, offline=validate, schema=VALIDATE_SCHEMA)
)
