"""DVC stage ``event_timeline``: complex events -> ordered atomic-event timelines with arguments."""

from __future__ import annotations

import sys
import time

from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import DATA, metrics_path
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.events.schema import COMPLEX_EVENT_SCHEMA
from almanac.events.timeline import STAGE, TimelineConfig, build_timelines
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config

OUT = DATA / "events"


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(TimelineConfig, params, STAGE)
    llm = parse_llm_config(params)
    complex_events = read_parquet(OUT / "complex_events.parquet", COMPLEX_EVENT_SCHEMA)
    with LLMCache(llm.cache_path) as cache:
        timelines, ledger = build_timelines(
            complex_events, config, llm.role(config.role), cache, str(llm.prompts_dir)
        )
    write_parquet(timelines, OUT / "timelines.parquet")
    finish_stage(ledger, started, OUT / "timeline_rejects.parquet", metrics_path(STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
