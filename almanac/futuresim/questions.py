"""The FutureSim question set: OpenForesight's released questions plus what the filters decided.

The set is built from the released OpenForesight splits and written beside them, never over them:
``data/futuresim/repair/`` after the date repair loop, ``data/futuresim/questions/`` after the
answerability filter, each as ``<split>.parquet`` plus ``evidence.parquet`` (what every role was shown:
chunk ids and publish days with the cap of each search).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.io import atomic_dir, read_parquet, write_parquet
from almanac.core.months import month_start
from almanac.foresight.schema import QUESTION_SCHEMA, RELEASED_COLUMNS
from almanac.foresight.split import SPLITS, SplitConfig

# What an OpenForesight split file holds (the released columns, typed as in the pipeline).
RELEASED_SCHEMA = pa.schema([QUESTION_SCHEMA.field(name) for name in RELEASED_COLUMNS])
FUTURESIM_QUESTION_SCHEMA = pa.schema(
    [
        *RELEASED_SCHEMA,
        # The OpenForesight resolution date (the source article's day); resolution_date is the repaired one.
        pa.field("resolution_date_original", pa.date32(), nullable=False),
        pa.field("repair_moves", pa.int16(), nullable=False),  # passes whose judged-correct answer moved it
        pa.field("repair_model", pa.string()),  # the answer role's model; None when no pass ran
        pa.field("answerability_model", pa.string()),  # None until the answerability filter ran
    ]
)
EVIDENCE_FILE = "evidence.parquet"


def split_starts(config: SplitConfig) -> dict[str, date]:
    """First day of each split's window (its earliest month); splits without months are absent."""
    return {
        split: month_start(min(months)).date() for split, months in config.months_by_split().items() if months
    }


def read_released_splits(folder: Path) -> list[dict[str, Any]]:
    """Every row of the OpenForesight ``<split>/<month>.parquet`` files, in split and month order."""
    rows: list[dict[str, Any]] = []
    for split in SPLITS:
        for path in sorted((folder / split).glob("*.parquet")):
            rows.extend(read_parquet(path, RELEASED_SCHEMA).to_pylist())
    return rows


def read_set(folder: Path) -> list[dict[str, Any]]:
    """The rows of a FutureSim question folder (``<split>.parquet`` files), in split order."""
    rows: list[dict[str, Any]] = []
    for split in SPLITS:
        path = folder / f"{split}.parquet"
        if path.is_file():
            rows.extend(read_parquet(path, FUTURESIM_QUESTION_SCHEMA).to_pylist())
    return rows


def read_evidence(folder: Path) -> list[dict[str, Any]]:
    path = folder / EVIDENCE_FILE
    return read_parquet(path).to_pylist() if path.is_file() else []


def write_set(rows: Iterable[Mapping[str, Any]], evidence: pa.Table, folder: Path) -> None:
    """One file per split (each written, empty or not, so the folder's shape never depends on the data),
    built beside ``folder`` and swapped in whole."""
    by_split: dict[str, list[Mapping[str, Any]]] = {split: [] for split in SPLITS}
    for row in rows:
        by_split[str(row["split"])].append(row)
    with atomic_dir(folder) as staging:
        for split, split_rows in by_split.items():
            ordered = sorted(split_rows, key=lambda row: (row["resolution_date"], row["question_id"]))
            table = pa.Table.from_pylist(ordered, schema=FUTURESIM_QUESTION_SCHEMA)
            write_parquet(table, staging / f"{split}.parquet")
        write_parquet(evidence, staging / EVIDENCE_FILE)
