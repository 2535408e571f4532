"""The DuckDB views the reporting layer reads: stage outputs (Parquet) and stage metrics (JSON).

Every statistic of a report is SQL over a view registered here: the statistics stages (corpus_stats,
event_stats, gdelt_stats) and the Table-1 answer types over ``parquet_view``s of the stage outputs, and every
funnel (Table-1, each style's report and so the card) over the ``stage_metrics`` view of the stages'
metrics files. The per-style reports register the released split tables they read with ``table_view``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow as pa

from almanac.core.lazy import lazy_module

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

_NO_EXTRA = "produced"  # a column read as NULL when the caller asks for no extra key


@dataclass(frozen=True)
class StageTotals:
    items_in: int
    items_out: int
    rejected: int
    by_reason: dict[str, int]  # reason -> count, largest first, then by name
    extra: int | None  # sum of the requested extra key; None when no file has it


def sql_path(path: Path) -> str:
    """A DuckDB string literal of a file path."""
    return "'" + path.as_posix().replace("'", "''") + "'"


def sql_paths(paths: Sequence[Path]) -> str:
    """A DuckDB list literal of file paths."""
    return "[" + ", ".join(sql_path(path) for path in paths) + "]"


def parquet_view(con: duckdb.DuckDBPyConnection, view: str, paths: Sequence[Path], select: str = "*") -> None:
    """View ``view``: ``select`` over the rows of every Parquet file of ``paths``."""
    con.execute(f"CREATE OR REPLACE VIEW {view} AS SELECT {select} FROM read_parquet({sql_paths(paths)})")


def table_view(con: duckdb.DuckDBPyConnection, view: str, table: pa.Table) -> None:
    """View ``view`` over an Arrow table already in memory (released splits read with their schema)."""
    con.register(view, table)


def stage_metrics_view(
    con: duckdb.DuckDBPyConnection, files: Sequence[Path], extra_key: str | None = None
) -> str:
    """View ``stage_metrics``: one row per metrics file with its counts and ``extra_key`` (NULL when absent).

    Returns the quoted name of the extra column.
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
    return extra


def sum_stage_metrics(
    con: duckdb.DuckDBPyConnection, stage: str, files: Sequence[Path], extra_key: str | None = None
) -> StageTotals:
    """Totals over ``files`` (one stage's metrics, one file per month or a single file).

    Raises ValueError when a file lacks the counts, since a hole in a funnel would pass unnoticed.
    """
    extra = stage_metrics_view(con, files, extra_key)
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
