"""DVC stage ``wcep_ingest``: Wikipedia Current Events Portal day pages -> one row per event."""

from __future__ import annotations

import sys
import time

import pyarrow as pa

from almanac.core.io import write_parquet
from almanac.core.layout import metrics_path, wcep_events, wcep_rejects
from almanac.core.params import parse_section
from almanac.core.raw_input import NoRawInput
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.wcep.days import WCEP_EVENT_SCHEMA
from almanac.wcep.ingest import STAGE, WcepIngestConfig, ingest_wcep


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(WcepIngestConfig, params, STAGE)
    try:
        rows, ledger = ingest_wcep(config)
    except OSError as error:  # an input that cannot be read at all: say which and stop
        print(f"{STAGE}: cannot read input: {error}", file=sys.stderr)
        return 1
    if not ledger.items_in:
        # One events table serves every month, so no month can make it empty on purpose.
        raise NoRawInput(f"read no Current Events day page and no WCEP-MDS event from {_sources(config)}")
    write_parquet(pa.Table.from_pylist(rows, schema=WCEP_EVENT_SCHEMA), wcep_events())
    finish_stage(ledger, started, wcep_rejects(), metrics_path(STAGE))
    return 0


def _sources(config: WcepIngestConfig) -> str:
    named = [
        *([f"dump_dir {config.dump_dir}"] if config.dump_dir else []),
        *([f"portal_dir {config.portal_dir}"] if config.portal_dir else []),
        *(f"mds_files {name}" for name in config.mds_files),
    ]
    return ", ".join(named) or "no source (dump_dir, portal_dir and mds_files are all empty)"
