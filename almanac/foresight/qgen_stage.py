"""DVC stage ``foresight_qgen@<month>``: deduplicated articles -> candidate questions (generator role)."""

from __future__ import annotations

import sys
import time

from almanac.core.layout import read_month_articles
from almanac.core.params import ccnews_months, parse_section
from almanac.core.stage import parse_stage_args
from almanac.foresight.generate import STAGE, QgenConfig, generate_questions
from almanac.foresight.stage_io import write_month
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.pipeline.foresight import QGEN


def run() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(QgenConfig, params.get("foresight") or {}, "qgen")
    llm = parse_llm_config(params)
    if "months" in params and not ccnews_months(params):
        # An empty corpus here is a build without CC-News, not a month without news: say so, build nothing.
        print(
            f"{STAGE}@{args.month}: OpenForesight needs the CC-News corpus, and CC-News is off "
            '(ccnews_ingest.raw_dir is "": a build without CC-News, e.g. GDELT only: '
            "`dvc repro check_mirai`)",
            file=sys.stderr,
        )
        return 1
    articles = read_month_articles(args.month)
    with LLMCache(llm.cache_path) as cache:
        questions, ledger = generate_questions(articles, config, llm, cache)
    write_month(questions, ledger, QGEN, args.month, started)
    return 0
