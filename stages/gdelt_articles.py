"""DVC stage ``gdelt_articles``: the article behind each clean GDELT event URL, linked and quality-checked."""

from __future__ import annotations

import sys
import time

import pyarrow.compute as pc

from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import metrics_path, read_corpus
from almanac.core.params import months_in_scope, parse_section
from almanac.core.rejects import StageLedger
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.gdelt import GDELT_DIR
from almanac.gdelt.articles import QUALITY_REASONS, STAGE, GdeltArticlesConfig, link_articles
from almanac.gdelt.clean import CLEAN_EVENT_SCHEMA

OUT = GDELT_DIR


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(GdeltArticlesConfig, params, STAGE)
    corpus = read_corpus(months_in_scope(params))
    events = read_parquet(OUT / "clean" / "events.parquet", CLEAN_EVENT_SCHEMA)
    urls = pc.unique(events.column("url")).to_pylist()
    ledger = StageLedger(STAGE)
    # fetcher=None: with fetch enabled, link_articles opens (and closes) its own HTTP fetcher.
    articles = link_articles(urls, corpus, config, None, ledger)
    by_reason = ledger.rejected_by_reason
    ledger.extra["linked"] = sum(ledger.extra.get("linked_by", {}).values())
    ledger.extra["not_in_corpus"] = by_reason.get("not_in_corpus", 0)
    ledger.extra["cleaned_out"] = {reason: by_reason.get(reason, 0) for reason in QUALITY_REASONS}
    write_parquet(articles, OUT / "articles.parquet")
    finish_stage(ledger, started, OUT / "articles_rejects.parquet", metrics_path(STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
