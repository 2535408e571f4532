"""DVC stage ``wcep_ingest``: Wikipedia Current Events Portal day pages -> one row per event."""

from __future__ import annotations

import sys
import time

import pyarrow as pa

from almanac.core.io import write_parquet
from almanac.core.layout import metrics_path, wcep_events, wcep_rejects
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.wcep.days import WCEP_EVENT_SCHEMA
from almanac.wcep.ingest import STAGE, WcepIngestConfig, ingest_wcep


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(WcepIngestConfig, params, STAGE)
    try:
        rows, ledger = ingest_wcep(config)
    except OSError as error:  # an input that cannot be read at all: say which and stop
        print(f"{STAGE}: cannot read input: {error}", file=sys.stderr)
        return 1
    write_parquet(pa.Table.from_pylist(rows, schema=WCEP_EVENT_SCHEMA), wcep_events())
    finish_stage(ledger, started, wcep_rejects(), metrics_path(STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
