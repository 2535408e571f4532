"""What the question tasks share: the generated-question record and the article/question variables.

Every task sees its inputs in one agreed form: dates as ``YYYY-MM-DD``, candidate lists in a tagged
layout that both models and the offline baseline can read back.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from almanac.llm.parsing import (
    collapse,
    find_tags,
    one_tag,
)

QUESTION_FIELDS = (
    "question_title",
    "background",
    "resolution_criteria",
    "answer",
    "answer_type",
    "question_start_date",
    "resolution_date",
)


@dataclass(frozen=True)
class GeneratedQuestion:
    question_title: str
    background: str
    resolution_criteria: str
    answer: str
    answer_type: str  # "string (name)", "numeric (integer)", ...
    # As written (whitespace collapsed): "2025-07-14", "July 2025", "unknown", ... The question stages
    # read them as a day, month or year and reject the one candidate they cannot read.
    question_start_date: str
    resolution_date: str


@dataclass(frozen=True)
class UnusableCandidate:
    """One candidate block of a reply that fails a format check; the reply's other blocks still count.

    ``question`` holds what the block has (missing fields empty), so the stage can file a reject
    naming the candidate; ``reason`` is ``candidate_malformed``.
    """

    question: GeneratedQuestion
    reason: str
    detail: str


def multiline(text: str) -> str:
    """Whitespace inside each line collapsed, blank lines dropped (criteria are often bullet lists)."""
    return "\n".join(collapse(line) for line in text.splitlines() if line.strip())


def iso_day(moment: date | datetime | str) -> str:
    if isinstance(moment, datetime | date):
        return moment.strftime("%Y-%m-%d")
    return date.fromisoformat(str(moment)[:10]).isoformat()


def article_variables(title: str | None, text: str, max_chars: int) -> dict[str, str]:
    body = text if max_chars <= 0 or len(text) <= max_chars else text[:max_chars].rsplit(" ", 1)[0] + " ..."
    return {"article_title": title or "(untitled)", "article_text": body}


def question_variables(question: GeneratedQuestion) -> dict[str, str]:
    return {name: getattr(question, name) for name in QUESTION_FIELDS}


def parse_candidates(text: str) -> list[GeneratedQuestion]:
    return [
        GeneratedQuestion(**{name: one_tag(block, name, allow_empty=True) for name in QUESTION_FIELDS})
        for block in find_tags(text, "candidate")
    ]
