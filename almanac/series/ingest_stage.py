"""DVC stage ``series_ingest``: the series files the manifest lists -> data/series/observations.parquet."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from almanac.core.io import write_parquet
from almanac.core.layout import metrics_path
from almanac.core.layout import series_paths as sp
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.series.config import parse_series
from almanac.series.ingest import STAGE, ManifestError, ingest


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_series(params).ingest
    try:
        table, ledger = ingest(Path(config.inputs_dir), config)
    except ManifestError as error:
        print(f"{STAGE}: {error}", file=sys.stderr)
        return 1
    write_parquet(table, sp.series_observations())
    finish_stage(ledger, started, sp.series_ingest_rejects(), metrics_path(STAGE))
    return 0
