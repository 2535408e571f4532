"""Summary statistics of one numeric distribution, computed the same way for every style's report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from almanac.core.lazy import lazy_module

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")


SUMMARY_KEYS = ("count", "mean", "median", "p90", "max")
# Over a column named v; median and p90 are interpolated (quantile_cont), as numpy's default percentile.
SUMMARY_SQL = "count(v), avg(v), quantile_cont(v, 0.5), quantile_cont(v, 0.9), max(v)"


def summary_row(row: Sequence[Any]) -> dict[str, Any]:
    """``SUMMARY_KEYS`` from a (count, mean, median, p90, max) row; no values gives count 0 and nulls."""
    count, mean, median, p90, top = row
    if not count:
        return dict.fromkeys(SUMMARY_KEYS) | {"count": 0}
    high = float(top)
    return {
        "count": int(count),
        "mean": round(float(mean), 3),
        "median": round(float(median), 3),
        "p90": round(float(p90), 3),
        "max": int(high) if high.is_integer() else round(high, 3),
    }


def summary(con: duckdb.DuckDBPyConnection, values_sql: str) -> dict[str, Any]:
    """Summary of the non-null column ``v`` of the query ``values_sql``."""
    row = con.execute(f"SELECT {SUMMARY_SQL} FROM ({values_sql}) WHERE v IS NOT NULL").fetchone()
    assert row is not None
    return summary_row(row)
