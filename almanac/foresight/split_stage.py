"""DVC stage ``foresight_split``: train / validation / test by resolution month -> released Parquet."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import pyarrow as pa

from almanac.core.io import read_parquet_dir, write_month_partitions
from almanac.core.layout import (
    foresight_split_rejects,
    foresight_splits_dir,
    metrics_path,
    question_dedup_dir,
)
from almanac.core.lazy import lazy_module
from almanac.core.params import parse_section
from almanac.core.rejects import StageLedger
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.foresight.schema import QUESTION_SCHEMA, RELEASED_COLUMNS
from almanac.foresight.split import SPLITS, SplitConfig, assign_splits

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # ~0.1 s at import (it builds every compute function's wrapper): paid where used
    pc = lazy_module("pyarrow.compute")

STAGE = "foresight_split"


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(SplitConfig, params.get("foresight") or {}, "split")
    questions = read_parquet_dir(question_dedup_dir(), QUESTION_SCHEMA)
    ledger = StageLedger(STAGE)
    table = assign_splits(questions, config, ledger)
    released = table.select(list(RELEASED_COLUMNS))
    resolution_months = pc.strftime(
        released.column("resolution_date").cast(pa.timestamp("s")), format="%Y-%m"
    )
    released = released.append_column("resolution_month", resolution_months)
    for split, months in config.months_by_split().items():
        assert split in SPLITS
        rows = released.filter(pc.equal(released.column("split"), split))
        write_month_partitions(
            rows, foresight_splits_dir() / split, sorted(months), "resolution_month", False
        )
    finish_stage(ledger, started, foresight_split_rejects(), metrics_path(STAGE))
    return 0
