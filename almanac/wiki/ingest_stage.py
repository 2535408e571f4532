"""DVC stage ``wiki_ingest``: Wikipedia pages-articles dumps -> articles with plain-text sections."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pyarrow as pa

from almanac.core.io import write_parquet
from almanac.core.layout import metrics_path, wiki_articles, wiki_rejects
from almanac.core.parallel import RayConfig, parallel_map
from almanac.core.params import parse_section
from almanac.core.rejects import gather
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.wiki.ingest import (
    STAGE,
    WIKI_ARTICLE_SCHEMA,
    DumpTask,
    WikiIngestConfig,
    find_dumps,
    ingest_dump,
    keep_latest_revisions,
)


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(WikiIngestConfig, params, STAGE)
    ray_config = parse_section(RayConfig, params, "ray")
    try:
        dumps = find_dumps(Path(config.raw_dir))
        tasks = [DumpTask(str(p), p.as_posix(), config.min_words, config.max_page_bytes) for p in dumps]
        results = parallel_map(ingest_dump, tasks, ray_config, desc=STAGE, unit="dump")
    except OSError as error:  # an input that cannot be read at all: say which and stop
        print(f"{STAGE}: cannot read input: {error}", file=sys.stderr)
        return 1
    rows, ledger = gather(STAGE, results, dumps=len(dumps))
    rows = keep_latest_revisions(rows, ledger)
    table = pa.Table.from_pylist(sorted(rows, key=lambda row: row["page_id"]), schema=WIKI_ARTICLE_SCHEMA)
    write_parquet(table, wiki_articles())
    finish_stage(ledger, started, wiki_rejects(), metrics_path(STAGE))
    return 0
