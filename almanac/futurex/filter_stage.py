"""DVC stage ``futurex_filter``: harmful and subjective events dropped by the judge roles' vote, yes/no
events down-sampled, at most a param's worth of events per source and day."""

from __future__ import annotations

import time

import almanac.futurex.llm_tasks  # noqa: F401 (registers the judge tasks)
from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import futurex_events, futurex_filter_rejects, futurex_filtered, metrics_path
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.futurex.config import parse_futurex
from almanac.futurex.filters import FILTER_STAGE, filter_events
from almanac.futurex.schema import EVENT_SCHEMA, events_table
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or FILTER_STAGE, per_month=False)
    config = parse_futurex(params)
    llm = parse_llm_config(params)
    events = read_parquet(futurex_events(), EVENT_SCHEMA).to_pylist()
    with LLMCache(llm.cache_path) as cache:
        kept, ledger = filter_events(events, config.filter, config.seed, llm, cache)
    write_parquet(events_table(kept), futurex_filtered())
    finish_stage(ledger, started, futurex_filter_rejects(), metrics_path(FILTER_STAGE))
    return 0
