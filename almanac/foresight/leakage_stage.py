"""Step ``foresight_leakage`` of DVC stage ``foresight_month@<month>``: LLM rewrite of revealing spans, then a
string re-scan."""

from __future__ import annotations

import time
from typing import Any

from almanac.core.params import parse_section
from almanac.core.stage import start_stage
from almanac.foresight.leakage import STAGE, LeakageConfig, fix_leakage
from almanac.foresight.stage_io import read_questions, write_month
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.pipeline.foresight import LEAKAGE, SELECT


def run_step(month: str, params: dict[str, Any]) -> int:
    """Run the step on ``month``; its outputs, rejects, metrics, timings and summary line are its own."""
    started = time.perf_counter()
    start_stage(f"{STAGE}@{month}", params)  # errors, the summary line and timings name the step
    config = parse_section(LeakageConfig, params.get("foresight") or {}, "leakage")
    llm = parse_llm_config(params)
    with LLMCache(llm.cache_path) as cache:
        questions, ledger = fix_leakage(read_questions(SELECT, month), config, llm, cache)
    write_month(questions, ledger, LEAKAGE, month, started)
    return 0
