"""DVC stage ``complex_events``: event articles and WCEP stories -> complex events with dated documents."""

from __future__ import annotations

import time

from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import (
    complex_events,
    complex_events_rejects,
    metrics_path,
    wcep_events,
    wcep_news,
    wiki_events,
)
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.events.complex import STAGE, ComplexEventsConfig, build_complex_events
from almanac.events.schema import WIKI_EVENT_SCHEMA
from almanac.wcep.days import WCEP_EVENT_SCHEMA
from almanac.wcep.news import WCEP_NEWS_SCHEMA


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(ComplexEventsConfig, params, STAGE)
    events, ledger = build_complex_events(
        read_parquet(wiki_events(), WIKI_EVENT_SCHEMA),
        read_parquet(wcep_events(), WCEP_EVENT_SCHEMA),
        read_parquet(wcep_news(), WCEP_NEWS_SCHEMA),
        config,
    )
    write_parquet(events, complex_events())
    finish_stage(ledger, started, complex_events_rejects(), metrics_path(STAGE))
    return 0
