"""DVC stage ``event_timeline``: complex events -> ordered atomic-event timelines with arguments."""

from __future__ import annotations

import time

from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import complex_events, metrics_path, timeline_rejects, timelines
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.events.schema import COMPLEX_EVENT_SCHEMA
from almanac.events.timeline import STAGE, TimelineConfig, build_timelines
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(TimelineConfig, params, STAGE)
    llm = parse_llm_config(params)
    events = read_parquet(complex_events(), COMPLEX_EVENT_SCHEMA)
    with LLMCache(llm.cache_path) as cache:
        built, ledger = build_timelines(events, config, llm.role(config.role), cache, str(llm.prompts_dir))
    write_parquet(built, timelines())
    finish_stage(ledger, started, timeline_rejects(), metrics_path(STAGE))
    return 0
