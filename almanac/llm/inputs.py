"""Builders of task items (template variables) from pipeline records.

Stages build their :class:`TaskItem` lists here so that every task sees its inputs in one agreed
form: dates as ``YYYY-MM-DD``, candidate lists in a tagged layout that both models and the offline
baseline can read back.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime

from almanac.llm.outputs import QUESTION_FIELDS, GeneratedQuestion
from almanac.llm.parsing import find_tags, one_tag
from almanac.llm.tasks import TaskItem


def iso_day(moment: date | datetime | str) -> str:
    if isinstance(moment, datetime | date):
        return moment.strftime("%Y-%m-%d")
    return date.fromisoformat(str(moment)[:10]).isoformat()


def _article(title: str | None, text: str, max_chars: int) -> dict[str, str]:
    body = text if max_chars <= 0 or len(text) <= max_chars else text[:max_chars].rsplit(" ", 1)[0] + " ..."
    return {"article_title": title or "(untitled)", "article_text": body}


def question_variables(question: GeneratedQuestion) -> dict[str, str]:
    return {name: getattr(question, name) for name in QUESTION_FIELDS}


def qgen_item(
    article_id: str,
    title: str | None,
    text: str,
    publish_date: date | datetime | str,
    source: str,
    n_questions: int,
    max_chars: int = 0,
) -> TaskItem:
    variables = {
        **_article(title, text, max_chars),
        "publish_date": iso_day(publish_date),
        "source": source,
        "n_questions": str(n_questions),
    }
    return TaskItem(article_id, variables)


def validate_item(
    question_id: str,
    question: GeneratedQuestion,
    title: str | None,
    text: str,
    publish_date: date | datetime | str,
    max_chars: int = 0,
) -> TaskItem:
    variables = {
        **_article(title, text, max_chars),
        "publish_date": iso_day(publish_date),
        **question_variables(question),
    }
    return TaskItem(question_id, variables)


def format_candidates(candidates: Sequence[GeneratedQuestion]) -> str:
    blocks = []
    for index, question in enumerate(candidates):
        fields = "\n".join(f"<{name}>{getattr(question, name)}</{name}>" for name in QUESTION_FIELDS)
        blocks.append(f"<candidate>\n<number>{index}</number>\n{fields}\n</candidate>")
    return "\n".join(blocks)


def parse_candidates(text: str) -> list[GeneratedQuestion]:
    return [
        GeneratedQuestion(**{name: one_tag(block, name, allow_empty=True) for name in QUESTION_FIELDS})
        for block in find_tags(text, "candidate")
    ]


def select_best_item(
    article_id: str,
    candidates: Sequence[GeneratedQuestion],
    title: str | None,
    text: str,
    publish_date: date | datetime | str,
    max_chars: int = 0,
) -> TaskItem:
    variables = {
        **_article(title, text, max_chars),
        "publish_date": iso_day(publish_date),
        "candidates": format_candidates(candidates),
        "n_candidates": str(len(candidates)),
    }
    return TaskItem(article_id, variables)


def leakage_item(question_id: str, question: GeneratedQuestion) -> TaskItem:
    variables = question_variables(question)
    del variables["question_start_date"], variables["resolution_date"]
    return TaskItem(question_id, variables)


def date_repair_item(
    question_id: str,
    question: GeneratedQuestion,
    text: str,
    publish_date: date | datetime | str,
    max_chars: int = 0,
) -> TaskItem:
    variables = {
        "question_title": question.question_title,
        "background": question.background,
        "answer": question.answer,
        "answer_type": question.answer_type,
        "resolution_date": question.resolution_date,
        "publish_date": iso_day(publish_date),
        "article_text": _article(None, text, max_chars)["article_text"],
    }
    return TaskItem(question_id, variables)
