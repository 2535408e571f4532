"""The articles a release cites, as one table per style, with or without their full text.

News licences often forbid redistributing article text, so ``urls_only`` keeps what is needed to find
each article again (URL, title, date) and drops the text column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import pyarrow as pa

from almanac.core.layout import complex_events, gdelt_articles, month_files
from almanac.core.lazy import lazy_module
from almanac.reports.styles import TableKey

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

TEXT_COLUMN = "text"


def cited_articles(
    style: str, tables: Mapping[TableKey, pa.Table], months: Sequence[str], urls_only: bool
) -> pa.Table | None:
    """The cited articles of ``tables``, sorted by their key; None when the style cites none that exist."""
    if style in ("futuresim", "futurex", "series"):
        # FutureSim ships its whole date-gated corpus in day folders instead (almanac.reports.release_extras);
        # FutureX rows name the page their answer is read from (`resolution_source`); series questions are
        # built from data series and cite no article.
        return None
    con = duckdb.connect()
    if style == "openforesight":
        table = _foresight(con, tables, months)
    elif style == "openforecast":
        table = _forecast(con, tables)
    elif style == "mirai":
        table = _mirai(con, tables)
    else:
        raise ValueError(f"unknown style {style!r}")
    if table is None:
        return None
    if urls_only and TEXT_COLUMN in table.column_names:
        table = table.drop_columns([TEXT_COLUMN])
    return table


def _union(con: duckdb.DuckDBPyConnection, tables: Mapping[TableKey, pa.Table], columns: str) -> None:
    parts = []
    for index, table in enumerate(tables.values()):
        con.register(f"split_{index}", table)
        parts.append(f"SELECT {columns} FROM split_{index}")
    con.execute(
        "CREATE OR REPLACE TEMP VIEW released AS " + (" UNION ALL ".join(parts) or "SELECT NULL LIMIT 0")
    )


def _foresight(
    con: duckdb.DuckDBPyConnection, tables: Mapping[TableKey, pa.Table], months: Sequence[str]
) -> pa.Table | None:
    existing = [str(path) for month in months for path in month_files(month)]
    if not tables or not existing:
        return None
    _union(con, tables, "url")
    # Every article column: the publisher picks and renames what it releases (news-please names).
    return con.sql(
        f"SELECT a.* FROM read_parquet({existing!r}, union_by_name = true) a "
        "WHERE a.url IN (SELECT url FROM released) ORDER BY a.url"
    ).to_arrow_table()


def _forecast(con: duckdb.DuckDBPyConnection, tables: Mapping[TableKey, pa.Table]) -> pa.Table | None:
    path = complex_events()
    if not tables or not path.is_file():
        return None
    _union(con, tables, "ce_id")
    return con.sql(
        "SELECT ce_id, d.doc_id, d.kind, d.date, d.title, d.urls, d.text FROM ("
        f"SELECT ce_id, unnest(documents) AS d FROM read_parquet('{path}') "
        "WHERE ce_id IN (SELECT ce_id FROM released)) ORDER BY ce_id, d.doc_id"
    ).to_arrow_table()


def _mirai(con: duckdb.DuckDBPyConnection, tables: Mapping[TableKey, pa.Table]) -> pa.Table | None:
    path = gdelt_articles()
    if not tables or not path.is_file():
        return None
    _union(con, tables, "unnest(urls) AS url")
    return con.sql(
        "SELECT url, title, publish_date, origin, word_count, text "
        f"FROM read_parquet('{path}') WHERE url IN (SELECT url FROM released) ORDER BY url"
    ).to_arrow_table()
