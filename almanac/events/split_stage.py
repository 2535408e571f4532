"""DVC stage ``event_split``: samples -> data/events/splits/<split>/<task>.parquet, invariants re-checked."""

from __future__ import annotations

import time

from almanac.core.io import read_parquet
from almanac.core.layout import event_split_rejects, event_splits_dir, metrics_path, samples_path
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.events.cuts import EventTasksConfig
from almanac.events.samples import SAMPLE_SCHEMAS, TASKS
from almanac.events.split import STAGE, split_samples, write_splits


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(EventTasksConfig, params, "event_tasks")
    samples = {task: read_parquet(samples_path(task), SAMPLE_SCHEMAS[task]) for task in TASKS}
    tables, ledger = split_samples(samples, config.split)
    write_splits(tables, event_splits_dir())
    finish_stage(ledger, started, event_split_rejects(), metrics_path(STAGE))
    return 0
