"""Reading and writing the per-month question files of the OpenForesight stages."""

from __future__ import annotations

import pyarrow as pa

from almanac.core.io import read_parquet, write_parquet
from almanac.core.layout import foresight_path, foresight_rejects, metrics_path
from almanac.core.rejects import StageLedger
from almanac.core.stage import finish_stage
from almanac.foresight.schema import QUESTION_SCHEMA


def read_questions(step: str, month: str) -> pa.Table:
    return read_parquet(foresight_path(step, month), QUESTION_SCHEMA)


def write_month(table: pa.Table, ledger: StageLedger, step: str, month: str, started: float) -> None:
    """Questions, rejects and metrics of one month; the metrics file is named after the DVC stage."""
    write_parquet(table.cast(QUESTION_SCHEMA), foresight_path(step, month))
    finish_stage(ledger, started, foresight_rejects(step, month), metrics_path(ledger.stage, month))
