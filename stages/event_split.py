"""DVC stage ``event_split``: samples -> data/events/splits/<split>/<task>.parquet, invariants re-checked."""

from __future__ import annotations

import sys
import time

from almanac.core.io import read_parquet
from almanac.core.layout import metrics_path
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.events.cuts import EventTasksConfig
from almanac.events.samples import EVENTS_DIR, SAMPLE_SCHEMAS, SPLIT_REJECTS_PATH, TASKS, samples_path
from almanac.events.split import STAGE, split_samples, write_splits


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(EventTasksConfig, params, "event_tasks")
    samples = {task: read_parquet(samples_path(task), SAMPLE_SCHEMAS[task]) for task in TASKS}
    tables, ledger = split_samples(samples, config.split)
    write_splits(tables, EVENTS_DIR / "splits")
    finish_stage(ledger, started, SPLIT_REJECTS_PATH, metrics_path(STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
