"""DVC stage ``ccnews_ingest@<month>``: CC-News WARC / news-please JSONL of one crawl month -> articles."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from almanac.ccnews.ingest import STAGE, FileTask, IngestConfig, discover_files, ingest_file
from almanac.core.io import write_month_partitions
from almanac.core.layout import ccnews_raw_dir, ingest_articles_dir, ingest_rejects, metrics_path
from almanac.core.parallel import RayConfig, parallel_map
from almanac.core.params import parse_section
from almanac.core.raw_input import check_raw_files
from almanac.core.rejects import gather
from almanac.core.schemas import ARTICLE_SCHEMA, table_from_rows
from almanac.core.stage import finish_stage, parse_stage_args


def run() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(IngestConfig, params, STAGE)
    ray_config = parse_section(RayConfig, params, "ray")
    month_dir = ccnews_raw_dir(config.raw_dir, args.month)
    try:
        files = discover_files(Path(config.raw_dir), args.month) if month_dir.is_dir() else []
        check_raw_files(month_dir, len(files), args.month, params, "ccnews")
        tasks = [FileTask(str(path), path.as_posix(), kind, config) for path, kind in files]
        results = parallel_map(ingest_file, tasks, ray_config, desc=STAGE, unit="file")
    except OSError as error:  # an input that cannot be read at all: say which and stop
        print(f"{STAGE}: cannot read input: {error}", file=sys.stderr)
        return 1
    rows, ledger = gather(STAGE, results, files=len(files))
    table = table_from_rows(rows, ARTICLE_SCHEMA)
    table = table.sort_by(
        [("publish_month", "ascending"), ("publish_date", "ascending"), ("id", "ascending")]
    )
    write_month_partitions(table, ingest_articles_dir(args.month), None, "publish_month")
    finish_stage(ledger, started, ingest_rejects(args.month), metrics_path(STAGE, args.month))
    return 0
