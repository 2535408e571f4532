"""DVC stage ``dedup``: MinHash-LSH near-duplicate removal over all months in scope.

Reads the per-crawl-month signature files (``dedup_signatures``), bands them, reads back only the texts
of candidate pairs, and writes the kept articles month by month; texts are never all in memory. With
the band index of a previous run (``data/dedup/index``), added crawl months are probed against it and
only changed months are rewritten (almanac.dedup.incremental); the outputs are those of a full rebuild.
"""

from __future__ import annotations

import sys
import time

from almanac.core.layout import dedup_rejects, dedup_signatures, metrics_path
from almanac.core.parallel import RayConfig
from almanac.core.params import ccnews_months, months_in_scope, parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.core.without_pandas import pyarrow_without_pandas
from almanac.dedup.allocator import release_free_memory
from almanac.dedup.incremental import dedup_corpus
from almanac.dedup.near_duplicates import STAGE, DedupConfig, record_selection


def run() -> int:
    started = time.perf_counter()
    pyarrow_without_pandas()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    months = months_in_scope(params)
    crawled = ccnews_months(params)
    config = parse_section(DedupConfig, params, STAGE)
    ray_config = parse_section(RayConfig, params, "ray")
    missing = [month for month in crawled if not dedup_signatures(month).is_file()]
    if missing:
        print(f"{STAGE}: no signatures for months {missing}; run dedup_signatures first", file=sys.stderr)
        return 1
    # No CC-News month (ccnews_ingest.raw_dir: "") gives an empty corpus on purpose, never a missing one.
    ledger, selection = dedup_corpus(crawled, months, config, ray_config)
    record_selection(ledger, selection)
    del selection  # its row arrays (~23 bytes an article), before the rejects are read back and sorted
    release_free_memory()
    ledger.extra["ccnews_months"] = crawled
    finish_stage(ledger, started, dedup_rejects(), metrics_path(STAGE))
    return 0
