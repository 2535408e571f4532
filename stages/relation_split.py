"""DVC stage ``relation_split@<month>``: one month of GDELT quads -> a balanced sample of MIRAI queries."""

from __future__ import annotations

import sys
import time

from almanac.core.io import write_parquet
from almanac.core.layout import metrics_path
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.gdelt.countries import ISO3_REGION
from almanac.mirai.queries import (
    QUADS_PATH,
    STAGE,
    RelationSplitConfig,
    build_month,
    queries_path,
    read_quads,
    rejects_path,
)


def main() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(RelationSplitConfig, params, STAGE)
    try:
        quads = read_quads(QUADS_PATH)
    except (OSError, ValueError) as error:
        print(f"{STAGE}: cannot read {QUADS_PATH}: {error}", file=sys.stderr)
        return 1
    table, ledger = build_month(quads, args.month, config, ISO3_REGION, source=QUADS_PATH.as_posix())
    write_parquet(table, queries_path(args.month))
    finish_stage(ledger, started, rejects_path(args.month), metrics_path(STAGE, args.month))
    return 0


if __name__ == "__main__":
    sys.exit(main())
