"""Step ``foresight_dates`` of DVC stage ``foresight_month@<month>``: parse, check and clamp dates (optionally
repair them)."""

from __future__ import annotations

import time
from typing import Any

from almanac.core.layout import read_month_articles
from almanac.core.params import parse_section
from almanac.core.stage import start_stage
from almanac.foresight.dates import STAGE, DatesConfig, check_dates
from almanac.foresight.records import article_index
from almanac.foresight.stage_io import read_questions, write_month
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.pipeline.foresight import ANSWER_TYPE, DATES


def run_step(month: str, params: dict[str, Any]) -> int:
    """Run the step on ``month``; its outputs, rejects, metrics, timings and summary line are its own."""
    started = time.perf_counter()
    start_stage(f"{STAGE}@{month}", params)  # errors, the summary line and timings name the step
    config = parse_section(DatesConfig, params.get("foresight") or {}, "dates")
    llm = parse_llm_config(params)
    articles = article_index(read_month_articles(month))
    with LLMCache(llm.cache_path) as cache:
        questions, ledger = check_dates(
            read_questions(ANSWER_TYPE, month), articles, month, config, llm, cache
        )
    write_month(questions, ledger, DATES, month, started)
    return 0
