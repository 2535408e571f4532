"""DVC stage ``gdelt_clean``: MIRAI's rules over the GDELT events of every month in scope -> events, quads."""

from __future__ import annotations

import logging
import time

from almanac.core.io import write_parquet
from almanac.core.layout import (
    gdelt_clean_events,
    gdelt_clean_rejects,
    gdelt_events,
    gdelt_quads,
    metrics_path,
)
from almanac.core.params import months_in_scope, parse_section
from almanac.core.rejects import TableLedger
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.gdelt.clean import STAGE, GdeltCleanConfig, clean_events


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(GdeltCleanConfig, params, STAGE)
    paths = [gdelt_events(month) for month in months_in_scope(params)]
    missing = [str(path) for path in paths if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"{STAGE}: run gdelt_ingest first; missing {missing}")
    ledger = TableLedger(STAGE)
    result = clean_events(paths, config, ledger)
    ledger.extra.update(
        {
            "mention_rule": f"num_daily_mentions {config.mention_comparison} {config.mention_threshold}",
            "funnel": result.funnel,
            **result.quad_counts,
        }
    )
    write_parquet(result.events, gdelt_clean_events())
    write_parquet(result.quads, gdelt_quads())
    logging.getLogger(STAGE).info("kept %d quads", result.quads.num_rows)
    finish_stage(ledger, started, gdelt_clean_rejects(), metrics_path(STAGE))
    return 0
