"""Question rows in QUESTION_SCHEMA for split and funnel tests."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pyarrow as pa

from almanac.core.schemas import table_from_rows
from almanac.foresight.schema import QUESTION_SCHEMA


def question(
    question_id: str,
    resolved: date | None,
    source: str = "bbc.co.uk",
    answer: str = "Nobody",
    title: str = "Who will win the vote by March 2025?",
    background: str = "A vote is planned.",
    criteria: str = "Resolves to the winner named by the commission.",
    answer_class: str | None = "name",
    split: str | None = None,
) -> dict[str, Any]:
    return {
        "question_id": question_id,
        "article_id": f"a-{question_id}",
        "month": "2025-01",
        "url": f"https://news.example/{question_id}",
        "article_title": "Some headline",
        "article_publish_date": datetime(2025, 1, 1, tzinfo=UTC),
        "news_source": source,
        "candidate_index": 0,
        "question_title": title,
        "background": background,
        "resolution_criteria": criteria,
        "answer": answer,
        "answer_type": "string (name)",
        "question_start_date_text": "2025-01-01",
        "resolution_date_text": resolved.isoformat() if resolved else "",
        "generator_model": "gen",
        "generator_prompt": "v1:abc",
        "candidate_problem": None,
        "validator_model": "val",
        "leakage_edited": False,
        "answer_class": answer_class,
        "question_start_date": date(2025, 1, 1),
        "resolution_date": resolved,
        "resolution_date_clamped": False,
        "question_start_date_clamped": False,
        "question_start_date_text_precision": "day",
        "resolution_date_text_precision": "day",
        "cross_question_leak": None,
        "split": split,
    }


def table(*rows: dict[str, Any]) -> pa.Table:
    return table_from_rows(rows, QUESTION_SCHEMA)
