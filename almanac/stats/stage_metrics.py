"""Sums of stage metrics files (items_in, items_out, rejected, rejected_by_reason), read with DuckDB.

Every funnel table, OpenForesight's Table-1 and the per-style reports, reads its counts through here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import duckdb

_NO_EXTRA = "produced"  # a column read as NULL when the caller asks for no extra key


@dataclass(frozen=True)
class StageTotals:
    items_in: int
    items_out: int
    rejected: int
    by_reason: dict[str, int]  # reason -> count, largest first, then by name
    extra: int | None  # sum of the requested extra key; None when no file has it


def sql_paths(paths: Sequence[Path]) -> str:
    """A DuckDB list literal of file paths."""
    return "[" + ", ".join("'" + str(path).replace("'", "''") + "'" for path in paths) + "]"


def sum_stage_metrics(
    con: duckdb.DuckDBPyConnection, stage: str, files: Sequence[Path], extra_key: str | None = None
) -> StageTotals:
    """Totals over ``files`` (one stage's metrics, one file per month or a single file).

    Raises ValueError when a file lacks the counts, since a hole in a funnel would pass unnoticed.
    """
    extra = '"' + (extra_key or _NO_EXTRA).replace('"', '""') + '"'
    columns = (
        "{items_in: 'BIGINT', items_out: 'BIGINT', rejected: 'BIGINT', "
        f"rejected_by_reason: 'MAP(VARCHAR, BIGINT)', {extra}: 'BIGINT'}}"
    )
    con.execute(
        "CREATE OR REPLACE TEMP VIEW stage_metrics AS "
        f"SELECT * FROM read_json({sql_paths(files)}, columns={columns})"
    )
    totals = con.execute(
        f"SELECT sum(items_in), sum(items_out), sum(rejected), sum({extra}), "
        "count(*) FILTER (WHERE items_in IS NULL OR items_out IS NULL OR rejected IS NULL) FROM stage_metrics"
    ).fetchone()
    assert totals is not None
    if totals[4]:
        raise ValueError(f"stage {stage}: a metrics file lacks items_in/items_out/rejected")
    reasons = con.execute(
        "SELECT key, sum(value) FROM (SELECT unnest(map_entries(rejected_by_reason), recursive := true) "
        "FROM stage_metrics) GROUP BY key ORDER BY sum(value) DESC, key"
    ).fetchall()
    return StageTotals(
        items_in=int(totals[0]),
        items_out=int(totals[1]),
        rejected=int(totals[2]),
        by_reason={str(reason): int(count) for reason, count in reasons},
        extra=None if totals[3] is None or extra_key is None else int(totals[3]),
    )
