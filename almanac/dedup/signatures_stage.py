"""DVC stage ``dedup_signatures@<crawl month>``: MinHash signatures of one crawl month's ingested articles.

A foreach item per crawl month (``ccnews_months``), so adding a month signs only that month: the other
months' signature files come back from the DVC cache. ``signed_documents`` in the metrics counts the
articles this stage signed.
"""

from __future__ import annotations

import sys
import time

from almanac.core.layout import dedup_signatures, ingest_articles_dir, metrics_path
from almanac.core.metrics import write_metrics
from almanac.core.parallel import RayConfig
from almanac.core.params import parse_section
from almanac.core.stage import end_stage, parse_stage_args
from almanac.core.without_pandas import pyarrow_without_pandas
from almanac.dedup.near_duplicates import DedupConfig
from almanac.dedup.signature_store import sign_crawl_month

STAGE = "dedup_signatures"


def run() -> int:
    started = time.perf_counter()
    pyarrow_without_pandas()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(DedupConfig, params, "dedup")
    source = ingest_articles_dir(args.month)
    if not source.is_dir():
        print(f"{STAGE}: no ingest output {source}; run ccnews_ingest@{args.month} first", file=sys.stderr)
        return 1
    ray_config = parse_section(RayConfig, params, "ray")
    target = dedup_signatures(args.month)
    signed = sign_crawl_month(source, target, config.minhash, config.sign_batch_rows, ray_config)
    metrics = {
        "stage": STAGE,
        "items_in": signed,
        "items_out": signed,
        "rejected": 0,
        "signed_documents": signed,
    }
    write_metrics({**metrics, "num_perm": config.num_perm}, metrics_path(STAGE, args.month))
    end_stage(STAGE, f"{signed} articles signed", started)
    return 0
