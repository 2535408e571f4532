"""Step ``foresight_select`` of DVC stage ``foresight_month@<month>``: one question per article (best of
several, by the validator)."""

from __future__ import annotations

import time
from typing import Any

from almanac.core.layout import read_month_articles
from almanac.core.params import parse_section
from almanac.core.stage import start_stage
from almanac.foresight.records import article_index
from almanac.foresight.select import STAGE, select_best
from almanac.foresight.stage_io import read_questions, write_month
from almanac.foresight.validate import JudgeConfig
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.pipeline.foresight import SELECT, VALIDATE


def run_step(month: str, params: dict[str, Any]) -> int:
    """Run the step on ``month``; its outputs, rejects, metrics, timings and summary line are its own."""
    started = time.perf_counter()
    start_stage(f"{STAGE}@{month}", params)  # errors, the summary line and timings name the step
    config = parse_section(JudgeConfig, params.get("foresight") or {}, "judge")
    llm = parse_llm_config(params)
    articles = article_index(read_month_articles(month))
    with LLMCache(llm.cache_path) as cache:
        questions, ledger = select_best(read_questions(VALIDATE, month), articles, config, llm, cache)
    write_month(questions, ledger, SELECT, month, started)
    return 0
