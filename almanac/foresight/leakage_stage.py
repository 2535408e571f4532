"""DVC stage ``foresight_leakage@<month>``: LLM rewrite of revealing spans, then a string re-scan."""

from __future__ import annotations

import time

from almanac.core.params import parse_section
from almanac.core.stage import parse_stage_args
from almanac.foresight.leakage import STAGE, LeakageConfig, fix_leakage
from almanac.foresight.stage_io import read_questions, write_month
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.pipeline.foresight import LEAKAGE, SELECT


def run() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(LeakageConfig, params.get("foresight") or {}, "leakage")
    llm = parse_llm_config(params)
    with LLMCache(llm.cache_path) as cache:
        questions, ledger = fix_leakage(read_questions(SELECT, args.month), config, llm, cache)
    write_month(questions, ledger, LEAKAGE, args.month, started)
    return 0
