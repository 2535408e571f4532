"""DVC stage ``dedup``: MinHash-LSH near-duplicate removal over all months in scope."""

from __future__ import annotations

import sys
import time

import pyarrow as pa

from almanac.core.io import read_parquet_dir, write_month_partitions
from almanac.core.layout import articles_dir, dedup_rejects, ingest_articles_dir, metrics_path
from almanac.core.parallel import RayConfig
from almanac.core.params import ccnews_months, months_in_scope, parse_section
from almanac.core.schemas import ARTICLE_SCHEMA
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.dedup.near_duplicates import STAGE, DedupConfig, deduplicate


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    months = months_in_scope(params)
    crawled = ccnews_months(params)
    config = parse_section(DedupConfig, params, STAGE)
    ray_config = parse_section(RayConfig, params, "ray")
    undeclared = [month for month in months if crawled and month not in crawled]
    if undeclared:
        # A month in scope without its CC-News crawl would get an empty corpus silently.
        print(
            f"{STAGE}: months {undeclared} are in `months` but not in `ccnews_months`: add them there "
            "(or set `ccnews_months: []` for a build without CC-News)",
            file=sys.stderr,
        )
        return 1
    missing = [month for month in crawled if not ingest_articles_dir(month).is_dir()]
    if missing:
        print(f"{STAGE}: no ingest output for months {missing}; run ccnews_ingest first", file=sys.stderr)
        return 1
    # No CC-News month (ccnews_months: []) gives an empty corpus on purpose, never a missing one.
    articles = pa.concat_tables(
        [ARTICLE_SCHEMA.empty_table()]
        + [read_parquet_dir(ingest_articles_dir(month), ARTICLE_SCHEMA) for month in crawled]
    )
    kept, ledger = deduplicate(articles, months, config, ray_config)
    ledger.extra["ccnews_months"] = crawled
    write_month_partitions(kept, articles_dir(), months, "publish_month")
    finish_stage(ledger, started, dedup_rejects(), metrics_path(STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
