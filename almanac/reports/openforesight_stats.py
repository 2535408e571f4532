"""DuckDB statistics over the released OpenForesight questions: counts, length and horizon distributions.

The split tables are registered with DuckDB as one view ``questions``; every function here runs one or
two queries on it and returns plain Python values in a fixed order (most frequent first, ties by name;
histogram bins in ascending order), so that the same files always give the same report.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from almanac.core.lazy import lazy_module
from almanac.foresight.schema import QUESTION_SCHEMA
from almanac.reports import distributions
from almanac.reports.styles import TableKey
from almanac.reports.views import table_view

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

# The released columns the statistics read; a version of the data lacking one reads it as NULL.
STATS_COLUMNS = (
    "question_id",
    "question_title",
    "answer",
    "answer_class",
    "question_start_date",
    "resolution_date",
    "news_source",
    "cross_question_leak",
)
NO_CLASS = "(none)"  # answer_class is NULL for rows of older versions
MAX_BINS = 20  # regular bins per histogram; values beyond the last one share one overflow bin "<n>+"
WORD_WIDTHS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
DAY_WIDTHS = (1, 7, 14, 28, 91, 182, 364)  # days, weeks, then roughly months, quarters, years

_STATS_SCHEMA = pa.schema(
    [pa.field("split", pa.string())]
    + [pa.field(name, QUESTION_SCHEMA.field(name).type) for name in STATS_COLUMNS]
)


def questions_table(tables: Mapping[TableKey, pa.Table]) -> pa.Table:
    """The statistics columns of every split table in one table, with ``split`` taken from the table key."""
    parts = [_stats_columns(table, key.split) for key, table in sorted(tables.items())]
    if not parts:
        return _STATS_SCHEMA.empty_table()
    return pa.concat_tables(parts)


def _stats_columns(table: pa.Table, split: str) -> pa.Table:
    columns: list[pa.Array | pa.ChunkedArray] = [pa.array([split] * table.num_rows, type=pa.string())]
    for name in STATS_COLUMNS:
        kind = _STATS_SCHEMA.field(name).type
        if name in table.column_names:
            columns.append(table.column(name).cast(kind))
        else:
            columns.append(pa.nulls(table.num_rows, type=kind))
    return pa.Table.from_arrays(columns, schema=_STATS_SCHEMA)


def connect(questions: pa.Table) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    table_view(con, "questions", questions)
    return con


def word_count(column: str) -> str:
    """SQL for the number of whitespace-separated words of ``column`` (0 for blank text, NULL for NULL)."""
    return f"CASE WHEN trim({column}) = '' THEN 0 ELSE len(string_split_regex(trim({column}), '\\s+')) END"


HORIZON_DAYS = "(resolution_date - question_start_date)"  # DATE - DATE is a whole number of days


def counts(con: duckdb.DuckDBPyConnection, expression: str) -> list[tuple[str, int]]:
    """Questions per value of ``expression``, most frequent first, ties by value."""
    rows = con.execute(
        f"SELECT {expression} AS value, count(*) AS n FROM questions GROUP BY value ORDER BY n DESC, value"
    ).fetchall()
    return [(str(value), int(n)) for value, n in rows]


def split_month_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, int]]:
    """(split, resolution month, questions), sorted by split and month."""
    rows = con.execute(
        "SELECT split, coalesce(strftime(resolution_date, '%Y-%m'), '(none)') AS month, count(*) "
        "FROM questions GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    return [(str(split), str(month), int(n)) for split, month, n in rows]


def flagged_leaks(con: duckdb.DuckDBPyConnection) -> int:
    row = con.execute("SELECT count(*) FILTER (WHERE cross_question_leak) FROM questions").fetchone()
    return int(row[0]) if row else 0


def summary(con: duckdb.DuckDBPyConnection, expression: str) -> dict[str, Any]:
    """Summary of ``expression`` over the released questions where it is not NULL."""
    return distributions.summary(con, f"SELECT {expression} AS v FROM questions")


def histogram(
    con: duckdb.DuckDBPyConnection, expression: str, widths: Sequence[int]
) -> list[tuple[str, int]]:
    """(bin label, questions) for every bin from the smallest value up, empty bins included.

    The bin width is the first of ``widths`` that covers the smallest value to the 99th percentile in at
    most MAX_BINS bins, so one far outlier does not squash the rest into a single bar; values above the
    last bin are counted in an overflow bin labelled "<lower edge>+". Width 1 bins are labelled by their
    value, wider ones by their inclusive range ("10-14").
    """
    bounds = con.execute(
        f"SELECT min(v), quantile_disc(v, 0.99) FROM (SELECT {expression} AS v FROM questions) "
        "WHERE v IS NOT NULL"
    ).fetchone()
    if bounds is None or bounds[0] is None:
        return []
    low, high = int(bounds[0]), int(bounds[1])
    width = _bin_width(low, high, widths)
    first, last = low // width, high // width
    found = con.execute(
        f"SELECT floor(v / {width})::BIGINT AS b, count(*) FROM (SELECT {expression} AS v FROM questions) "
        "WHERE v IS NOT NULL GROUP BY b ORDER BY b"
    ).fetchall()
    by_bin = {int(b): int(n) for b, n in found}
    rows = [(_bin_label(b * width, width), by_bin.get(b, 0)) for b in range(first, last + 1)]
    overflow = sum(n for b, n in by_bin.items() if b > last)
    if overflow:
        rows.append((f"{(last + 1) * width}+", overflow))
    return rows


def _bin_width(low: int, high: int, widths: Sequence[int]) -> int:
    for width in widths:
        if high // width - low // width + 1 <= MAX_BINS:
            return width
    width = widths[-1]
    while high // width - low // width + 1 > MAX_BINS:
        width *= 2
    return width


def _bin_label(start: int, width: int) -> str:
    return str(start) if width == 1 else f"{start}-{start + width - 1}"
