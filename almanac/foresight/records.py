"""Conversions between question rows (QUESTION_SCHEMA) and the LLM layer's question objects."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.foresight.llm_tasks.questions import GeneratedQuestion
from almanac.foresight.schema import QUESTION_SCHEMA
from almanac.llm.tasks import TaskResult

LATER_COLUMNS = {
    "validator_model": None,
    "leakage_edited": None,
    "answer_class": None,
    "question_start_date": None,
    "resolution_date": None,
    "resolution_date_clamped": None,
    "question_start_date_clamped": None,
    "question_start_date_text_precision": None,
    "resolution_date_text_precision": None,
    "cross_question_leak": None,
    "split": None,
}


def question_row(
    article: Mapping[str, Any],
    index: int,
    question: GeneratedQuestion,
    result: TaskResult[Any],
    problem: str | None = None,
) -> dict[str, Any]:
    """A fresh candidate: article provenance + the generated fields; later stages' columns empty.

    ``problem`` ("<reason>: <detail>") marks a candidate that cannot be used; it stays a row so the
    next stage files the reject and the funnel still counts it as generated.
    """
    return {
        "question_id": content_id(article["id"], question.question_title, question.answer),
        "article_id": article["id"],
        "month": article["publish_month"],
        "url": article["url"],
        "article_title": article["title"],
        "article_publish_date": article["publish_date"],
        "news_source": article["source_domain"],
        "candidate_index": index,
        "question_title": question.question_title,
        "background": question.background,
        "resolution_criteria": question.resolution_criteria,
        "answer": question.answer,
        "answer_type": question.answer_type,
        "question_start_date_text": question.question_start_date,
        "resolution_date_text": question.resolution_date,
        "generator_model": result.model,
        "generator_prompt": f"{result.prompt_version}:{result.prompt_hash}",
        "candidate_problem": problem,
        **LATER_COLUMNS,
    }


def question_id(row: Mapping[str, Any]) -> str:
    """The id a question's reject row is filed under (a step getter)."""
    return str(row["question_id"])


def article_source(row: Mapping[str, Any]) -> str:
    """The source a question's reject row names: the article it was generated from (a step getter)."""
    return f"article:{row['article_id']}"


def as_generated(row: Mapping[str, Any]) -> GeneratedQuestion:
    return GeneratedQuestion(
        question_title=row["question_title"],
        background=row["background"],
        resolution_criteria=row["resolution_criteria"],
        answer=row["answer"],
        answer_type=row["answer_type"],
        question_start_date=row["question_start_date_text"],
        resolution_date=row["resolution_date_text"],
    )


def questions_table(rows: Iterable[Mapping[str, Any]]) -> pa.Table:
    """Rows in a stable order (publication, article, position): byte-identical reruns."""
    ordered = sorted(rows, key=lambda r: (r["article_publish_date"], r["article_id"], r["candidate_index"]))
    return pa.Table.from_pylist(ordered, schema=QUESTION_SCHEMA)


def article_index(articles: pa.Table) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in articles.to_pylist()}
