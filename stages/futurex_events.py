"""DVC stage ``futurex_events``: candidate events from the released OpenForesight questions, the GDELT
day-pairs MIRAI queries come from, and the numeric answers OpenForesight's answer-type filter drops."""

from __future__ import annotations

import sys
import time

from almanac.core.io import write_parquet
from almanac.core.layout import futurex_events, futurex_events_rejects, metrics_path
from almanac.core.params import months_in_scope
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.futurex.config import parse_futurex
from almanac.futurex.events import EVENTS_STAGE, collect_events
from almanac.futurex.inputs import day_pairs, numeric_rejects, released_questions
from almanac.futurex.schema import events_table
from almanac.mirai.cameo import CAMEO_CODES


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or EVENTS_STAGE, per_month=False)
    config = parse_futurex(params)
    numeric = numeric_rejects(months_in_scope(params), config.events.numeric_reasons)
    events, ledger = collect_events(released_questions(), day_pairs(), numeric, CAMEO_CODES)
    write_parquet(events_table(events), futurex_events())
    finish_stage(ledger, started, futurex_events_rejects(), metrics_path(EVENTS_STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
