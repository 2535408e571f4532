"""DVC stage ``foresight_select@<month>``: one question per article (best of several, by the validator)."""

from __future__ import annotations

import time

from almanac.core.layout import read_month_articles
from almanac.core.params import parse_section
from almanac.core.stage import parse_stage_args
from almanac.foresight.records import article_index
from almanac.foresight.select import STAGE, select_best
from almanac.foresight.stage_io import read_questions, write_month
from almanac.foresight.validate import JudgeConfig
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.pipeline.foresight import SELECT, VALIDATE


def run() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(JudgeConfig, params.get("foresight") or {}, "judge")
    llm = parse_llm_config(params)
    articles = article_index(read_month_articles(args.month))
    with LLMCache(llm.cache_path) as cache:
        questions, ledger = select_best(read_questions(VALIDATE, args.month), articles, config, llm, cache)
    write_month(questions, ledger, SELECT, args.month, started)
    return 0
