"""Step ``foresight_qgen`` of DVC stage ``foresight_month@<month>``: deduplicated articles -> candidate
questions (generator role)."""

from __future__ import annotations

import sys
import time
from typing import Any

from almanac.core.layout import read_month_articles
from almanac.core.params import ccnews_months, parse_section
from almanac.core.stage import start_stage
from almanac.foresight.generate import STAGE, QgenConfig, generate_questions
from almanac.foresight.stage_io import write_month
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config
from almanac.pipeline.foresight import QGEN


def run_step(month: str, params: dict[str, Any]) -> int:
    """Run the step on ``month``; its outputs, rejects, metrics, timings and summary line are its own."""
    started = time.perf_counter()
    start_stage(f"{STAGE}@{month}", params)  # errors, the summary line and timings name the step
    config = parse_section(QgenConfig, params.get("foresight") or {}, "qgen")
    llm = parse_llm_config(params)
    if "months" in params and not ccnews_months(params):
        # An empty corpus here is a build without CC-News, not a month without news: say so, build nothing.
        print(
            f"{STAGE}@{month}: OpenForesight needs the CC-News corpus, and CC-News is off "
            '(ccnews_ingest.raw_dir is "": a build without CC-News, e.g. GDELT only: '
            "`dvc repro relation_split`, then `almanac check mirai`)",
            file=sys.stderr,
        )
        return 1
    articles = read_month_articles(month)
    with LLMCache(llm.cache_path) as cache:
        questions, ledger = generate_questions(articles, config, llm, cache)
    write_month(questions, ledger, QGEN, month, started)
    return 0
