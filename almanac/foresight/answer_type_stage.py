"""Step ``foresight_answer_type`` of DVC stage ``foresight_month@<month>``: keep questions whose answer is of
an allowed class, then run the question filter table (almanac/foresight/question_filters.py)."""

from __future__ import annotations

import time
from typing import Any

from almanac.core.layout import read_month_articles
from almanac.core.params import parse_section
from almanac.core.stage import start_stage
from almanac.foresight.answer_filter import STAGE, filter_answer_types
from almanac.foresight.answer_types import AnswerTypeConfig
from almanac.foresight.question_filters import apply_question_filters
from almanac.foresight.stage_io import read_questions, write_month
from almanac.pipeline.foresight import ANSWER_TYPE, LEAKAGE


def run_step(month: str, params: dict[str, Any]) -> int:
    """Run the step on ``month``; its outputs, rejects, metrics, timings and summary line are its own."""
    started = time.perf_counter()
    start_stage(f"{STAGE}@{month}", params)  # errors, the summary line and timings name the step
    foresight = params.get("foresight") or {}
    config = parse_section(AnswerTypeConfig, foresight, "answer_type")
    articles = read_month_articles(month)
    texts = dict(zip(articles.column("id").to_pylist(), articles.column("text").to_pylist(), strict=True))
    questions, ledger = filter_answer_types(read_questions(LEAKAGE, month), texts, config)
    questions = apply_question_filters(questions, foresight.get("question_filters") or {}, ledger)
    write_month(questions, ledger, ANSWER_TYPE, month, started)
    return 0
