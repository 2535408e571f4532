"""Statistics of the GDELT event data and the MIRAI-style queries, computed with DuckDB from Parquet.

Per month, the counts MIRAI reports for its database: GDELT event records (as ingested and after
cleaning), unique (t, s, r, o) quads, the news articles linked to them; then the relation distribution at
the first level and by quad class (under both mappings), subject-region x object-region counts, and
the query splits. A quad's month is the month of its date; an ingested record's month is its file's.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from almanac.core.lazy import lazy_module
from almanac.core.markdown import markdown_table
from almanac.mirai.cameo import (
    QUAD_MAPPINGS,
    QUAD_NAMES,
    ROOT_CODES,
    ROOT_NAMES,
    binary_of_quad,
    relation_name,
)
from almanac.mirai.relation_split import UNKNOWN_REGION
from almanac.reports.views import parquet_view, sql_path, table_view

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

COUNT_COLUMNS = (
    "event_records",
    "clean_event_records",
    "quads",
    "quad_event_records",
    "pairs_by_day",
    "quad_urls",
    "linked_articles",
    "queries",
    "answers_per_query",
)
TOP_RELATIONS = 20
TOP_REGION_PAIRS = 25


def gdelt_statistics(
    months: Sequence[str],
    events: Mapping[str, Path],
    clean_events: Path,
    quads: Path,
    articles: Path,
    queries: Mapping[str, Path],
    regions: Mapping[str, str],
) -> dict[str, Any]:
    """``events`` and ``queries`` map each month to its file; the other inputs cover every month."""
    inputs = [*(events[m] for m in months), *(queries[m] for m in months), clean_events, quads, articles]
    missing = [path.as_posix() for path in inputs if not path.exists()]
    if missing:
        raise FileNotFoundError(f"missing inputs: {', '.join(missing)}")
    con = duckdb.connect()
    con.execute(_union("events", {m: events[m] for m in months}, "count(*) AS n"))
    con.execute(_union("queries", {m: queries[m] for m in months}, "query_id, answers"))
    parquet_view(con, "clean", [clean_events], "strftime(date, '%Y-%m') AS month")
    parquet_view(
        con,
        "quads",
        [quads],
        "strftime(date, '%Y-%m') AS month, date, subject, object, relation, left(relation, 2) AS root, "
        "n_events, urls",
    )
    con.execute("CREATE VIEW quad_urls AS SELECT month, unnest(urls) AS url FROM quads")
    parquet_view(con, "articles", [articles], "DISTINCT url")
    table_view(con, "regions", pa.table({"country": list(regions), "region": list(regions.values())}))
    table_view(con, "classes", _class_table())
    return {
        "months": list(months),
        "counts": _counts(con, months),
        "relations": _relations(con, months),
        "quad_classes": _quad_classes(con, months),
        "top_relations": _top_relations(con),
        "region_pairs": _region_pairs(con, months),
    }


def _union(view: str, files: Mapping[str, Path], columns: str) -> str:
    parts = [
        f"SELECT '{month}' AS month, {columns} FROM read_parquet({sql_path(path)})"
        for month, path in files.items()
    ]
    if "count(*)" in columns:
        parts = [part + " GROUP BY ALL" for part in parts]
    return f"CREATE VIEW {view} AS " + " UNION ALL ".join(parts)


def _class_table() -> pa.Table:
    rows = [
        {"root": f"{number:02d}", "mapping": mapping, "quad_class": quad, "binary": binary_of_quad(quad)}
        for mapping, table in QUAD_MAPPINGS.items()
        for number, quad in table.items()
    ]
    return pa.Table.from_pylist(rows)


def _by_month(con: duckdb.DuckDBPyConnection, sql: str) -> dict[str, int | float]:
    return {month: value for month, value in con.execute(sql).fetchall()}


def _counts(con: duckdb.DuckDBPyConnection, months: Sequence[str]) -> list[dict[str, Any]]:
    """One row per month and a total (the total counts distinct quads / URLs over all months)."""
    per_month = {
        "event_records": _by_month(con, "SELECT month, sum(n) FROM events GROUP BY month"),
        "clean_event_records": _by_month(con, "SELECT month, count(*) FROM clean GROUP BY month"),
        "quads": _by_month(con, "SELECT month, count(*) FROM quads GROUP BY month"),
        "quad_event_records": _by_month(con, "SELECT month, sum(n_events) FROM quads GROUP BY month"),
        "pairs_by_day": _by_month(
            con, "SELECT month, count(DISTINCT (date, subject, object)) FROM quads GROUP BY month"
        ),
        "quad_urls": _by_month(
            con,
            "SELECT month, count(DISTINCT url) FROM quad_urls GROUP BY month",
        ),
        "linked_articles": _by_month(
            con,
            "SELECT month, count(DISTINCT url) FROM quad_urls JOIN articles USING (url) GROUP BY month",
        ),
        "queries": _by_month(con, "SELECT month, count(*) FROM queries GROUP BY month"),
        "answers_per_query": _by_month(con, "SELECT month, avg(len(answers)) FROM queries GROUP BY month"),
    }
    totals = con.execute(
        """SELECT (SELECT sum(n) FROM events), (SELECT count(*) FROM clean), (SELECT count(*) FROM quads),
                  (SELECT sum(n_events) FROM quads),
                  (SELECT count(DISTINCT (date, subject, object)) FROM quads),
                  (SELECT count(DISTINCT url) FROM quad_urls),
                  (SELECT count(DISTINCT url) FROM quad_urls JOIN articles USING (url)),
                  (SELECT count(*) FROM queries), (SELECT avg(len(answers)) FROM queries)"""
    ).fetchone()
    assert totals is not None
    rows = [
        {"month": month, **{key: _number(per_month[key].get(month)) for key in COUNT_COLUMNS}}
        for month in months
    ]
    rows.append(
        {"month": "total", **{key: _number(value) for key, value in zip(COUNT_COLUMNS, totals, strict=True)}}
    )
    return rows


def _number(value: Any) -> int | float:
    if value is None:
        return 0
    return round(float(value), 2) if isinstance(value, float) else int(value)


def _relations(con: duckdb.DuckDBPyConnection, months: Sequence[str]) -> list[dict[str, Any]]:
    """Quads per root code and month, every root listed (zeros included), with its share of all quads."""
    counts = {
        (root, month): int(n)
        for root, month, n in con.execute("SELECT root, month, count(*) FROM quads GROUP BY ALL").fetchall()
    }
    total = sum(counts.values())
    rows = []
    for root in ROOT_CODES:
        by_month = {month: counts.get((root, month), 0) for month in months}
        root_total = sum(n for (r, _), n in counts.items() if r == root)
        share = round(root_total / total, 4) if total else 0.0
        rows.append({"root": root, "name": ROOT_NAMES[root], **by_month, "total": root_total, "share": share})
    return rows


def _quad_classes(con: duckdb.DuckDBPyConnection, months: Sequence[str]) -> list[dict[str, Any]]:
    counts = {
        (mapping, quad, month): int(n)
        for mapping, quad, month, n in con.execute(
            """SELECT c.mapping, c.quad_class, q.month, count(*)
               FROM quads q JOIN classes c USING (root) GROUP BY ALL"""
        ).fetchall()
    }
    rows = []
    for mapping in QUAD_MAPPINGS:
        for quad, name in QUAD_NAMES.items():
            by_month = {month: counts.get((mapping, quad, month), 0) for month in months}
            total = sum(n for (m, c, _), n in counts.items() if m == mapping and c == quad)
            rows.append(
                {
                    "mapping": mapping,
                    "quad_class": quad,
                    "name": name,
                    "binary": binary_of_quad(quad),
                    **by_month,
                    "total": total,
                }
            )
    return rows


def _top_relations(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    rows = con.execute(
        "SELECT relation, count(*) AS n FROM quads GROUP BY relation"
        f" ORDER BY n DESC, relation LIMIT {TOP_RELATIONS}"
    ).fetchall()
    return [{"relation": relation, "quads": int(n)} for relation, n in rows]


def _region_pairs(con: duckdb.DuckDBPyConnection, months: Sequence[str]) -> list[dict[str, Any]]:
    """Quads per (subject region, object region) and month; countries without a region are 'Unknown'."""
    rows = con.execute(
        f"""SELECT coalesce(s.region, '{UNKNOWN_REGION}') AS subject_region,
                   coalesce(o.region, '{UNKNOWN_REGION}') AS object_region, q.month, count(*)
            FROM quads q LEFT JOIN regions s ON s.country = q.subject
                         LEFT JOIN regions o ON o.country = q.object
            GROUP BY ALL"""
    ).fetchall()
    grid: dict[tuple[str, str], dict[str, int]] = {}
    for subject_region, object_region, month, n in rows:
        grid.setdefault((subject_region, object_region), {})[month] = int(n)
    table = [
        {
            "subject_region": s,
            "object_region": o,
            **{m: by.get(m, 0) for m in months},
            "total": sum(by.values()),
        }
        for (s, o), by in grid.items()
    ]
    return sorted(table, key=lambda row: (-row["total"], row["subject_region"], row["object_region"]))


def gdelt_stats_markdown(stats: dict[str, Any], codebook: Mapping[str, str] | None = None) -> str:
    months = stats["months"]
    total = next(row for row in stats["counts"] if row["month"] == "total")
    headers = [
        "month",
        "event records",
        "clean records",
        "quads",
        "records in quads",
        "pairs by day",
        "quad URLs",
        "linked articles",
        "queries",
        "answers / query",
    ]
    parts = [
        "# GDELT events and MIRAI-style queries",
        "",
        f"{total['clean_event_records']:,} cleaned GDELT event records, "
        f"{total['quads']:,} unique (t, s, r, o) quads and {total['linked_articles']:,} linked news "
        f"articles; {total['queries']:,} queries.",
        "",
        "## Counts by month (cf. MIRAI section 2.2)",
        "",
        "Event records: rows ingested from the month's export files; clean records: rows kept by "
        "gdelt_clean; "
        "quads: unique (date, subject, relation, object) above the mention threshold; pairs by day: distinct "
        "(date, subject, object); linked articles: the quads' URLs found in data/gdelt/articles.parquet.",
        "",
        markdown_table(
            headers, [[row["month"], *(row[k] for k in COUNT_COLUMNS)] for row in stats["counts"]]
        ),
        "",
        "## Quads by first-level relation",
        "",
        markdown_table(
            ["root", "relation", *months, "total", "share %"],
            [
                [r["root"], r["name"], *(r[m] for m in months), r["total"], round(100 * r["share"], 1)]
                for r in stats["relations"]
            ],
        ),
        "",
        "## Quads by quad class",
        "",
        "GDELT's QuadClass groups roots 01-05, 06-09, 10-14, 15-20; MIRAI's 01-04, 05-08, 09-16, 17-20.",
        "",
        markdown_table(
            ["mapping", "class", "binary", *months, "total"],
            [
                [
                    r["mapping"],
                    f"{r['quad_class']} {r['name']}",
                    r["binary"],
                    *(r[m] for m in months),
                    r["total"],
                ]
                for r in stats["quad_classes"]
            ],
        ),
        "",
        f"## The {TOP_RELATIONS} most frequent second-level relations",
        "",
        markdown_table(
            ["code", "relation", "quads"],
            [
                [r["relation"], relation_name(r["relation"], codebook), r["quads"]]
                for r in stats["top_relations"]
            ],
        ),
        "",
        f"## Subject region x object region (top {TOP_REGION_PAIRS}; all in reports/plots/mirai_regions.csv)",
        "",
        markdown_table(
            ["subject region", "object region", *months, "total"],
            [
                [r["subject_region"], r["object_region"], *(r[m] for m in months), r["total"]]
                for r in stats["region_pairs"][:TOP_REGION_PAIRS]
            ],
        ),
        "",
    ]
    return "\n".join(parts)


def plot_series(stats: dict[str, Any]) -> dict[str, str]:
    """CSV text per file name under reports/plots/."""
    months = stats["months"]
    return {
        "mirai_counts.csv": _csv(stats["counts"], ["month", *COUNT_COLUMNS]),
        "mirai_relations.csv": _csv(stats["relations"], ["root", "name", *months, "total", "share"]),
        "mirai_quad_classes.csv": _csv(
            stats["quad_classes"], ["mapping", "quad_class", "name", "binary", *months, "total"]
        ),
        "mirai_regions.csv": _csv(
            stats["region_pairs"], ["subject_region", "object_region", *months, "total"]
        ),
    }


def _csv(rows: list[dict[str, Any]], fields: list[str]) -> str:
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=fields, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()
