"""Reading and writing the per-month question files of the OpenForesight stages, at the paths their
declarations (almanac.pipeline.foresight) say: a stage names its upstream by declaration, not by string."""

from __future__ import annotations

import pyarrow as pa

from almanac.core.io import read_parquet, write_parquet
from almanac.core.rejects import StageLedger
from almanac.core.stage import finish_stage
from almanac.foresight.schema import QUESTION_SCHEMA
from almanac.pipeline.declare import Stage


def read_questions(step: Stage, month: str) -> pa.Table:
    """The questions ``step`` wrote for ``month`` (its first output)."""
    return read_parquet(step.outputs(month)[0], QUESTION_SCHEMA)


def write_month(table: pa.Table, ledger: StageLedger, step: Stage, month: str, started: float) -> None:
    """Questions, rejects and metrics of one month, at the three paths ``step`` declares."""
    if ledger.stage != step.name:
        raise ValueError(f"the ledger of {ledger.stage} cannot write the outputs of {step.name}")
    questions, rejects, metrics = step.outputs(month)
    write_parquet(table.cast(QUESTION_SCHEMA), questions)
    finish_stage(ledger, started, rejects, metrics)
