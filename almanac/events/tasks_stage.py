"""DVC stage ``event_tasks``: timelines -> the six forecasting tasks (STF, LTF, AQA, MCNC, MCAC, VQA)."""

from __future__ import annotations

import time

from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import metrics_path, samples_path, tasks_rejects, timelines
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.events.cuts import EventTasksConfig
from almanac.events.schema import TIMELINE_SCHEMA
from almanac.events.tasks import STAGE, build_tasks
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(EventTasksConfig, params, "event_tasks")
    llm = parse_llm_config(params)
    events = read_parquet(timelines(), TIMELINE_SCHEMA)
    with LLMCache(llm.cache_path) as cache:
        tables, ledger = build_tasks(events, config, llm.role(config.role), cache, llm.prompts_dir)
    for task, table in tables.items():
        write_parquet(table, samples_path(task))
    finish_stage(ledger, started, tasks_rejects(), metrics_path(STAGE))
    return 0
