"""Step ``foresight_validate`` of DVC stage ``foresight_month@<month>``: the validator role accepts or rejects
each candidate."""

from __future__ import annotations

import time
from typing import Any

from almanac.core.layout import read_month_articles
from almanac.core.params import parse_section
from almanac.core.stage import start_stage
from almanac.foresight.records import article_index
from almanac.foresight.stage_io import read_questions, write_month
from almanac.foresight.validate import STAGE, JudgeConfig, validate_questions
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config, warn_self_preference
from almanac.pipeline.foresight import QGEN, VALIDATE


def run_step(month: str, params: dict[str, Any]) -> int:
    """Run the step on ``month``; its outputs, rejects, metrics, timings and summary line are its own."""
    started = time.perf_counter()
    start_stage(f"{STAGE}@{month}", params)  # errors, the summary line and timings name the step
    config = parse_section(JudgeConfig, params.get("foresight") or {}, "judge")
    llm = parse_llm_config(params)
    warn_self_preference(llm, judge=config.role)
    articles = article_index(read_month_articles(month))
    with LLMCache(llm.cache_path) as cache:
        questions, ledger = validate_questions(read_questions(QGEN, month), articles, config, llm, cache)
    write_month(questions, ledger, VALIDATE, month, started)
    return 0
