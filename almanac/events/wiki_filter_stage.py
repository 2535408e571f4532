"""DVC stage ``wiki_filter``: Wikipedia articles -> event articles (section titles, LLM category and date)."""

from __future__ import annotations

import time

from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import metrics_path, wiki_articles, wiki_events, wiki_filter_rejects
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.events.wiki_filter import STAGE, WikiFilterConfig, filter_event_articles
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.wiki.ingest import WIKI_ARTICLE_SCHEMA


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(WikiFilterConfig, params, STAGE)
    llm = parse_llm_config(params)
    articles = read_parquet(wiki_articles(), WIKI_ARTICLE_SCHEMA)
    with LLMCache(llm.cache_path) as cache:
        events, ledger = filter_event_articles(articles, config, llm, cache)
    write_parquet(events, wiki_events())
    finish_stage(ledger, started, wiki_filter_rejects(), metrics_path(STAGE))
    return 0
