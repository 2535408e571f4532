"""DVC stage ``series_questions``: observations -> question splits by resolution month, data/series/splits/"""

from __future__ import annotations

import time

from almanac.core.io import atomic_dir, read_parquet, write_parquet
from almanac.core.layout import metrics_path
from almanac.core.layout import series_paths as sp
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.series.config import parse_series
from almanac.series.release import STAGE, build_release
from almanac.series.schema import OBSERVATION_SCHEMA


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_series(params)
    rows = read_parquet(sp.series_observations(), OBSERVATION_SCHEMA).to_pylist()
    tables, ledger = build_release(rows, config.split, config.questions)
    # The folder is swapped whole: a month no longer built leaves no stale file behind.
    with atomic_dir(sp.series_splits_dir()) as staging:
        for (split, month), table in tables.items():
            write_parquet(table, staging / split / f"{month}.parquet")
    finish_stage(ledger, started, sp.series_question_rejects(), metrics_path(STAGE))
    return 0
