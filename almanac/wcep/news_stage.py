"""DVC stage ``wcep_news``: each WCEP event's source links -> article text (CC-News corpus, else fetched)."""

from __future__ import annotations

import time

from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import metrics_path, read_corpus, wcep_events, wcep_news, wcep_news_rejects
from almanac.core.params import months_in_scope, parse_section
from almanac.core.rejects import StageLedger
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.wcep.days import WCEP_EVENT_SCHEMA
from almanac.wcep.news import NewsConfig, resolve_event_sources

STAGE = "wcep_news"


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(NewsConfig, params, STAGE)
    corpus = read_corpus(months_in_scope(params))
    events = read_parquet(wcep_events(), WCEP_EVENT_SCHEMA)
    ledger = StageLedger(STAGE)
    # fetcher=None: with fetch enabled, resolve_event_sources opens (and closes) its own HTTP fetcher.
    news = resolve_event_sources(events, corpus, config, None, ledger)
    write_parquet(news, wcep_news())
    finish_stage(ledger, started, wcep_news_rejects(), metrics_path(STAGE))
    return 0
