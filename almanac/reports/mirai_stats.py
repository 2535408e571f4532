"""DuckDB statistics of released MIRAI-style queries: the numbers behind ``almanac.reports.mirai``.

The queries are templated, ``(date, subject, ?, object)``, so the lengths that matter are those of the
answer sets (relations per query) and of the evidence (articles per query), not the query's words. A query
counts once per root, quad class or region it touches, so those counts may add up to more than the queries.
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping, Sequence
from datetime import date
from math import ceil
from typing import TYPE_CHECKING

import pyarrow as pa

from almanac.core.ids import source_domain
from almanac.core.lazy import lazy_module
from almanac.core.months import parse_month
from almanac.mirai.cameo import QUAD_MAPPINGS, QUAD_NAMES, ROOT_CODES, ROOT_NAMES
from almanac.mirai.relation_split import QUERY_SCHEMA
from almanac.reports.styles import TableKey
from almanac.reports.views import table_view

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

QUERY_COLUMNS = (
    "query_id",
    "month",
    "date",
    "subject_region",
    "object_region",
    "answers",
    "answer_roots",
    "n_articles",
    "urls",
    "horizons",
)
MAX_BINS = 20


def connect(tables: Mapping[TableKey, pa.Table]) -> duckdb.DuckDBPyConnection:
    """Views ``queries`` (one row per query, with its split), ``answer_codes`` and ``query_urls``."""
    parts = [
        table.select(QUERY_COLUMNS).append_column(
            "split", pa.array([key.split] * table.num_rows, pa.string())
        )
        for key, table in sorted(tables.items())
    ]
    if not parts:
        empty = QUERY_SCHEMA.empty_table().select(QUERY_COLUMNS)
        parts = [empty.append_column("split", pa.array([], pa.string()))]
    queries = pa.concat_tables(parts, promote_options="default")
    con = duckdb.connect()
    table_view(con, "queries", queries)
    con.execute(
        "CREATE VIEW answer_codes AS SELECT query_id, code, left(code, 2) AS root "
        "FROM (SELECT query_id, unnest(answers) AS code FROM queries)"
    )
    # URLs are parsed in Python with the same source_domain every other stage uses.
    links = [
        (query_id, url, source_domain(url))
        for query_id, urls in zip(
            queries.column("query_id").to_pylist(), queries.column("urls").to_pylist(), strict=True
        )
        for url in urls or ()
    ]
    table_view(
        con,
        "query_urls",
        pa.table(
            {
                name: pa.array([link[i] for link in links], pa.string())
                for i, name in enumerate(("query_id", "url", "domain"))
            }
        ),
    )
    classes = [
        (f"{root:02d}", mapping, quad, QUAD_NAMES[quad])
        for mapping, table in QUAD_MAPPINGS.items()
        for root, quad in table.items()
    ]
    table_view(
        con,
        "root_classes",
        pa.table(
            {
                "root": [row[0] for row in classes],
                "mapping": [row[1] for row in classes],
                "quad_class": pa.array([row[2] for row in classes], pa.int32()),
                "class_name": [row[3] for row in classes],
            }
        ),
    )
    return con


def value_counts(con: duckdb.DuckDBPyConnection, values_sql: str) -> dict[int, int]:
    rows = con.execute(f"SELECT v, count(*) FROM ({values_sql}) GROUP BY v ORDER BY v").fetchall()
    return {int(v): int(n) for v, n in rows}


def integer_bins(counts: Mapping[int, int], max_bins: int = MAX_BINS) -> list[tuple[str, int]]:
    """Histogram bins from the smallest to the largest value, every bin shown (zeros too).

    One value per bin while at most ``max_bins`` are needed, else equal bins labelled "low-high".
    """
    if not counts:
        return []
    low, high = min(counts), max(counts)
    width = max(1, ceil((high - low + 1) / max_bins))
    bins = []
    for start in range(low, high + 1, width):
        end = start + width - 1
        label = str(start) if width == 1 else f"{start}-{end}"
        bins.append((label, sum(n for value, n in counts.items() if start <= value <= end)))
    return bins


def split_month_counts(con: duckdb.DuckDBPyConnection, months: Sequence[str]) -> list[tuple[str, str, int]]:
    """(split, month, queries) for every split present and every month of the scope, zeros included."""
    found = {
        (split, month): int(n)
        for split, month, n in con.execute(
            "SELECT split, month, count(*) FROM queries GROUP BY ALL"
        ).fetchall()
    }
    splits = sorted({split for split, _ in found} | {"test"})
    all_months = sorted(set(months) | {month for _, month in found})
    return [(split, month, found.get((split, month), 0)) for split in splits for month in all_months]


def root_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, int, int]]:
    """(root, name, queries whose answers hold the root, answer codes under it) for all 20 roots."""
    found = {
        root: (int(queries), int(codes))
        for root, queries, codes in con.execute(
            "SELECT root, count(DISTINCT query_id), count(*) FROM answer_codes GROUP BY root"
        ).fetchall()
    }
    return [(root, ROOT_NAMES[root], *found.get(root, (0, 0))) for root in ROOT_CODES]


def code_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int]]:
    """(second-level code, queries answered with it), most frequent first."""
    rows = con.execute(
        "SELECT code, count(DISTINCT query_id) AS n FROM answer_codes GROUP BY code ORDER BY n DESC, code"
    ).fetchall()
    return [(str(code), int(n)) for code, n in rows]


def class_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int, str, int]]:
    """(mapping, quad class, name, queries whose answers touch the class) for both mappings, all classes."""
    found = {
        (mapping, int(quad)): int(n)
        for mapping, quad, n in con.execute(
            "SELECT mapping, quad_class, count(DISTINCT query_id) FROM answer_codes "
            "JOIN root_classes USING (root) GROUP BY ALL"
        ).fetchall()
    }
    return [
        (mapping, quad, name, found.get((mapping, quad), 0))
        for mapping in QUAD_MAPPINGS
        for quad, name in QUAD_NAMES.items()
    ]


def spanning_classes(con: duckdb.DuckDBPyConnection) -> dict[str, int]:
    """Per mapping: queries whose answer set falls in more than one quad class."""
    found = dict(
        con.execute(
            "SELECT mapping, count(*) FROM (SELECT mapping, query_id FROM answer_codes "
            "JOIN root_classes USING (root) GROUP BY ALL HAVING count(DISTINCT quad_class) > 1) "
            "GROUP BY mapping"
        ).fetchall()
    )
    return {mapping: int(found.get(mapping, 0)) for mapping in QUAD_MAPPINGS}


def region_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int, int]]:
    """(region, queries with it as subject region, as object region), by total then name."""
    rows = con.execute(
        """SELECT region, count(*) FILTER (WHERE role = 'subject') AS s,
                  count(*) FILTER (WHERE role = 'object') AS o
           FROM (SELECT subject_region AS region, 'subject' AS role FROM queries
                 UNION ALL SELECT object_region, 'object' FROM queries)
           GROUP BY region ORDER BY s + o DESC, region"""
    ).fetchall()
    return [(str(region), int(s), int(o)) for region, s, o in rows]


def domain_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[str, int, int]]:
    """(news domain, distinct URLs, queries citing it), most URLs first."""
    rows = con.execute(
        "SELECT domain, count(DISTINCT url) AS n, count(DISTINCT query_id) FROM query_urls "
        "GROUP BY domain ORDER BY n DESC, domain"
    ).fetchall()
    return [(str(domain), int(n), int(q)) for domain, n, q in rows]


def horizon_counts(con: duckdb.DuckDBPyConnection) -> list[tuple[int, int, int]]:
    """(declared horizon days, days from last history date to query date, queries)."""
    rows = con.execute(
        "SELECT h.days, date_diff('day', h.last_history_date, date) AS gap, count(*) FROM "
        "(SELECT date, unnest(horizons) AS h FROM queries) GROUP BY ALL ORDER BY gap, h.days"
    ).fetchall()
    return [(int(days), int(gap), int(n)) for days, gap, n in rows]


HORIZON_GAPS = (
    "SELECT date_diff('day', h.last_history_date, date) AS v "
    "FROM (SELECT date, unnest(horizons) AS h FROM queries)"
)


def day_counts(con: duckdb.DuckDBPyConnection) -> dict[date, int]:
    return {
        day: int(n) for day, n in con.execute("SELECT date, count(*) FROM queries GROUP BY date").fetchall()
    }


WEEKLY_UP_TO = 4  # months; beyond that the date bins are whole months (five bins a month is too many)


def date_bins(per_day: Mapping[date, int], months: Sequence[str]) -> list[tuple[str, int, int]]:
    """(label, queries, days with queries) for days 1-7, 8-14, 15-21, 22-28 and 29-end of each month.

    With more than ``WEEKLY_UP_TO`` months, one bin per month instead.
    """
    weekly = len(months) <= WEEKLY_UP_TO
    bins = []
    for month in months:
        year, number = parse_month(month)
        last = calendar.monthrange(year, number)[1]
        for start in range(1, last + 1, 7 if weekly else last):
            end = min(start + 6, last) if weekly else last
            days = [date(year, number, d) for d in range(start, end + 1)]
            bins.append(
                (
                    f"{month}-{start:02d}..{end:02d}" if weekly else month,
                    sum(per_day.get(d, 0) for d in days),
                    sum(1 for d in days if per_day.get(d, 0)),
                )
            )
    return bins


def scope_days(months: Sequence[str]) -> list[date]:
    days = []
    for month in months:
        year, number = parse_month(month)
        days += [date(year, number, d) for d in range(1, calendar.monthrange(year, number)[1] + 1)]
    return days
