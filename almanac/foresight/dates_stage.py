"""DVC stage ``foresight_dates@<month>``: parse, check and clamp dates (optionally repair them)."""

from __future__ import annotations

import time

from almanac.core.layout import read_month_articles
from almanac.core.params import parse_section
from almanac.core.stage import parse_stage_args
from almanac.foresight.dates import STAGE, DatesConfig, check_dates
from almanac.foresight.records import article_index
from almanac.foresight.stage_io import read_questions, write_month
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.pipeline.foresight import ANSWER_TYPE, DATES


def run() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(DatesConfig, params.get("foresight") or {}, "dates")
    llm = parse_llm_config(params)
    articles = article_index(read_month_articles(args.month))
    with LLMCache(llm.cache_path) as cache:
        questions, ledger = check_dates(
            read_questions(ANSWER_TYPE, args.month), articles, args.month, config, llm, cache
        )
    write_month(questions, ledger, DATES, args.month, started)
    return 0
