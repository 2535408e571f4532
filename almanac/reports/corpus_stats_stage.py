"""DVC stage ``corpus_stats``: DuckDB statistics of the deduplicated corpus -> reports/."""

from __future__ import annotations

import sys
import time

from almanac.core.io import write_text
from almanac.core.layout import dedup_rejects, ingest_rejects, month_files, stats_report
from almanac.core.metrics import write_metrics
from almanac.core.params import ccnews_months, months_in_scope
from almanac.core.stage import end_stage, parse_stage_args
from almanac.reports.corpus_stats import corpus_markdown, corpus_statistics

STAGE = "corpus_stats"


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    months = months_in_scope(params)
    crawled = ccnews_months(params)
    if not crawled:
        print(
            f'{STAGE}: CC-News is off (ccnews_ingest.raw_dir is ""): a build without CC-News has no corpus '
            "to describe",
            file=sys.stderr,
        )
        return 1
    stats = corpus_statistics(
        [path for month in months for path in month_files(month)],
        [ingest_rejects(month) for month in crawled],
        dedup_rejects(),
    )
    write_text(corpus_markdown(stats), stats_report(STAGE))
    write_metrics(stats, stats_report(STAGE, ".json"))
    end_stage(STAGE, f"{stats['articles']} articles from {stats['sources']} sources described", started)
    return 0
