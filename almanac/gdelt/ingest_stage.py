"""DVC stage ``gdelt_ingest@<month>``: the month's GDELT export/mentions files -> typed Parquet + rejects."""

from __future__ import annotations

import sys
import time

from almanac.core.io import write_parquet
from almanac.core.layout import (
    gdelt_events,
    gdelt_ingest_rejects,
    gdelt_mentions,
    gdelt_raw_dir,
    metrics_path,
)
from almanac.core.parallel import RayConfig, parallel_map
from almanac.core.params import parse_section
from almanac.core.raw_input import check_raw_files
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.gdelt.ingest import STAGE, GdeltIngestConfig, combine, discover_files, ingest_file


def run() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(GdeltIngestConfig, params, STAGE)
    ray_config = parse_section(RayConfig, params, "ray")
    month_dir = gdelt_raw_dir(args.month)  # filled by gdelt_download@<month>
    try:
        tasks = (
            discover_files(month_dir, config.max_member_bytes, config.max_line_bytes, config.chunk_bytes)
            if month_dir.is_dir()
            else []
        )
        check_raw_files(month_dir, len(tasks), args.month, params, "gdelt")
        month = combine(parallel_map(ingest_file, tasks, ray_config, STAGE, "file"), files=len(tasks))
    except OSError as error:  # an input that cannot be read at all: say which and stop
        print(f"{STAGE}: cannot read input: {error}", file=sys.stderr)
        return 1
    write_parquet(month.events, gdelt_events(args.month))
    write_parquet(month.mentions, gdelt_mentions(args.month))
    finish_stage(month.ledger, started, gdelt_ingest_rejects(args.month), metrics_path(STAGE, args.month))
    return 0
