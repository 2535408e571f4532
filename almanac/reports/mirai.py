"""The MIRAI-style report: released relation queries of the scope's months, and the GDELT branch's funnel.

Reads only ``data/mirai/queries/<month>.parquet`` (one ``test`` split per month), the stages' metrics
JSON files (relation_split's rules and balance: mirai_rules.py) and, for the month's dedup rate,
gdelt_clean's rejects and the month's ingested events; the frequency baseline (mirai_baseline.py) also
reads gdelt_clean's quads.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from almanac.core.lazy import lazy_module
from almanac.mirai.cameo import binary_of_quad, relation_name
from almanac.mirai.steps import RECIPE
from almanac.reports import mirai_stats as stats
from almanac.reports.distributions import summary
from almanac.reports.funnel import (
    FunnelStep,
    funnel_metrics,
    funnel_series,
    funnel_steps,
    funnel_table,
    llm_usage,
    rejects_table,
)
from almanac.reports.mirai_baseline import baseline_section
from almanac.reports.mirai_dedup import leakage_and_dedup
from almanac.reports.mirai_rules import rules_section
from almanac.reports.model import Panel, Report, Series, Table
from almanac.reports.scope import ReportScope
from almanac.reports.styles import get_style, read_split_tables
from almanac.reports.summary import style_summary

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

SERIES = ("relations", "quad_classes", "regions", "answers_per_query", "query_dates", "horizon", "funnel")
PANELS = (
    Panel("1_overview", "MIRAI: funnel and queries by date", ("funnel", "query_dates")),
    Panel(
        "2_content", "MIRAI: relations, quad classes and regions", ("relations", "quad_classes", "regions")
    ),
    Panel("3_distributions", "MIRAI: answers per query and horizon", ("answers_per_query", "horizon")),
)
# The recipe's steps, in its order (almanac.mirai.recipe).
FUNNEL = tuple(FunnelStep(step.stage, step.label, step.unit, step.per_month) for step in RECIPE.funnel())
TOP_CODES = 20
TOP_DOMAINS = 20
SUMMARY_HEADERS = ("Measure", "Count", "Mean", "Median", "P90", "Max")


def build_report(scope: ReportScope) -> Report:
    style = get_style("mirai")
    months = scope.months
    con = stats.connect(read_split_tables(style, months))
    funnel = funnel_steps(FUNNEL, months)
    metrics: dict[str, Any] = {}
    tables: list[Table] = []
    series: list[Series] = []
    notes = [
        "MIRAI queries are templated, (date, subject, ?, object), so their length in words is constant: "
        "answers per query and articles per query stand in for question and answer length.",
        "Funnel steps gdelt_clean and gdelt_articles run once over every month (whole-dataset numbers); "
        f"gdelt_download, gdelt_ingest and relation_split are summed over {', '.join(months) or 'no month'}.",
        "gdelt_ingest counts export and mentions rows together; gdelt_clean reads the export rows (events) "
        "only; relation_split's items are the month's (date, subject, object) groups of quads.",
        "MIRAI-style queries carry no leakage flag: the answers are relation codes, not text that could "
        "give them away, and each horizon's last_history_date bounds what a forecaster may read.",
    ]
    released = _counts(con, months, metrics, tables)
    series.append(_relations(con, metrics, tables))
    series.append(_quad_classes(con, scope, metrics, tables))
    series.append(_sources(con, metrics, tables))
    series.append(_lengths(con, metrics, tables))
    series.append(_query_dates(con, months, metrics, tables))
    series.append(_horizon(con, metrics, tables))
    notes += leakage_and_dedup(months, scope.params, funnel, metrics, tables)
    notes += rules_section(months, metrics, tables)
    notes += baseline_section(scope, metrics, tables)
    metrics["funnel"] = funnel_metrics(funnel)
    metrics["llm"] = llm_usage(funnel)
    tables += [funnel_table(funnel), rejects_table(funnel)]
    series.append(funnel_series(funnel))
    assert tuple(s.name for s in series) == SERIES
    return Report(
        "mirai",
        months,
        metrics,
        tuple(series),
        tuple(tables),
        tuple(notes),
        summary=style_summary("mirai", released, metrics, "queries") if scope.whole else None,
        panels=PANELS if scope.whole else (),
    )


def _counts(
    con: duckdb.DuckDBPyConnection, months: Sequence[str], metrics: dict[str, Any], tables: list[Table]
) -> dict[str, dict[str, int]]:
    """Query counts into ``metrics`` and ``tables``; returns queries per split and month."""
    rows = stats.split_month_counts(con, months)
    by_split: dict[str, int] = {}
    by_month: dict[str, int] = {}
    by_split_month: dict[str, dict[str, int]] = {}
    for split, month, n in rows:
        by_split[split] = by_split.get(split, 0) + n
        by_month[month] = by_month.get(month, 0) + n
        by_split_month.setdefault(split, {})[month] = n
    distinct = con.execute("SELECT count(*), count(DISTINCT query_id) FROM queries").fetchone()
    assert distinct is not None
    metrics.update(
        {
            "queries": int(distinct[0]),
            "queries_by_split": by_split,
            "queries_by_month": by_month,
            "repeated_query_ids": int(distinct[0]) - int(distinct[1]),
        }
    )
    tables.append(
        Table(
            "Queries per split and month",
            ("Split", "Month", "Queries"),
            tuple(rows),
            "MIRAI-style data has one test split per month.",
        )
    )
    return by_split_month


def _relations(con: duckdb.DuckDBPyConnection, metrics: dict[str, Any], tables: list[Table]) -> Series:
    roots = stats.root_counts(con)
    codes = stats.code_counts(con)
    metrics["relations"] = {
        "distinct_codes": len(codes),
        "answer_codes": sum(row[3] for row in roots),
        "queries_by_root": {root: queries for root, _, queries, _ in roots},
        "answers_by_root": {root: answers for root, _, _, answers in roots},
        "top_codes": dict(codes[:TOP_CODES]),
    }
    tables.append(
        Table(
            "Queries by first-level relation",
            ("Root", "Relation", "Queries", "Answer codes"),
            tuple(roots),
            "Queries whose answer set holds the CAMEO root, and the second-level answer codes under it.",
        )
    )
    tables.append(
        Table(
            f"The {TOP_CODES} most frequent second-level relations",
            ("Code", "Relation", "Queries"),
            tuple((code, relation_name(code), n) for code, n in codes[:TOP_CODES]),
        )
    )
    return Series(
        "relations",
        "Queries by first-level relation in the answer set",
        "relation",
        "queries",
        tuple({"relation": f"{root} {name}", "queries": queries} for root, name, queries, _ in roots),
        kind="barh",
        y_label="queries",
    )


def _quad_classes(
    con: duckdb.DuckDBPyConnection, scope: ReportScope, metrics: dict[str, Any], tables: list[Table]
) -> Series:
    rows = stats.class_counts(con)
    spanning = stats.spanning_classes(con)
    scorer = scope.params.get("scorer", {}).get("quad_mapping", "mirai")
    metrics["quad_classes"] = {"scorer_mapping": scorer}
    for mapping, _, name, n in rows:
        metrics["quad_classes"].setdefault(mapping, {})[name.replace(" ", "_")] = n
    for mapping, count in spanning.items():
        metrics["quad_classes"][mapping]["queries_spanning_classes"] = count
    tables.append(
        Table(
            "Queries by quad class",
            ("Mapping", "Class", "Name", "Binary", "Queries"),
            tuple((mapping, quad, name, binary_of_quad(quad), n) for mapping, quad, name, n in rows)
            + tuple((mapping, "-", "more than one class", "-", n) for mapping, n in spanning.items()),
            "Queries whose answers touch the class, under GDELT's QuadClass and MIRAI's grouping of the "
            f"roots; the scorer uses {scorer}.",
        )
    )
    return Series(
        "quad_classes",
        "Queries by quad class of their answers",
        "quad_class",
        "queries",
        tuple(
            {"quad_class": f"{quad} {name}", "mapping": mapping, "queries": n}
            for mapping, quad, name, n in rows
        ),
        kind="barh",
        x_label="quad class",
        y_label="queries",
        group="mapping",
    )


def _sources(con: duckdb.DuckDBPyConnection, metrics: dict[str, Any], tables: list[Table]) -> Series:
    regions = stats.region_counts(con)
    domains = stats.domain_counts(con)
    urls = sum(row[1] for row in domains)
    metrics["regions"] = {
        "subject": {region: s for region, s, _ in regions if s},
        "object": {region: o for region, _, o in regions if o},
    }
    metrics["sources"] = {
        "regions": len(regions),
        "urls": urls,
        "domains": len(domains),
        "top_domain_url_share": round(domains[0][1] / urls, 4) if urls else None,
    }
    tables.append(
        Table(
            "Queries by region",
            ("Region", "As subject", "As object", "Total"),
            tuple((region, s, o, s + o) for region, s, o in regions),
            "UN M49 sub-regions of the subject and object countries.",
        )
    )
    tables.append(
        Table(
            "News domains of the queries' articles"
            + (f" (top {TOP_DOMAINS} of {len(domains)})" if len(domains) > TOP_DOMAINS else ""),
            ("Domain", "URLs", "Queries"),
            tuple(domains[:TOP_DOMAINS]),
            "The publishers of the event URLs each query's answers were recorded from.",
        )
    )
    rows = [
        {"region": region, "role": role, "queries": n}
        for region, s, o in regions
        for role, n in (("subject", s), ("object", o))
    ]
    return Series(
        "regions",
        "Queries by subject and object region",
        "region",
        "queries",
        tuple(rows),
        kind="barh",
        y_label="queries",
        group="role",
    )


def _lengths(con: duckdb.DuckDBPyConnection, metrics: dict[str, Any], tables: list[Table]) -> Series:
    answers_sql = "SELECT len(answers) AS v FROM queries"
    metrics["answers_per_query"] = summary(con, answers_sql)
    metrics["articles_per_query"] = summary(con, "SELECT n_articles AS v FROM queries")
    tables.append(
        Table(
            "Answers and articles per query",
            SUMMARY_HEADERS,
            tuple(
                (label, *metrics[key].values())
                for label, key in (
                    ("answers per query", "answers_per_query"),
                    ("articles per query", "articles_per_query"),
                )
            ),
            "Answers: second-level relation codes in the answer set; articles: distinct URLs of its events.",
        )
    )
    bins = stats.integer_bins(stats.value_counts(con, answers_sql))
    return Series(
        "answers_per_query",
        "Answer-set size (second-level relations per query)",
        "answers",
        "queries",
        tuple({"answers": label, "queries": n} for label, n in bins),
        x_label="relations in the answer set",
        y_label="queries",
    )


def _query_dates(
    con: duckdb.DuckDBPyConnection, months: Sequence[str], metrics: dict[str, Any], tables: list[Table]
) -> Series:
    per_day = stats.day_counts(con)
    days = stats.scope_days(months)
    weeks = stats.date_bins(per_day, months)
    metrics["query_dates"] = {
        "days_in_scope": len(days),
        "days_with_queries": sum(1 for day in days if per_day.get(day)),
        "max_per_day": max((per_day.get(day, 0) for day in days), default=0),
        "min_per_day": min((per_day.get(day, 0) for day in days), default=0),
        "outside_scope": sum(per_day.values()) - sum(n for _, n, _ in weeks),
    }
    tables.append(
        Table(
            "Queries by date",
            ("Dates", "Queries", "Days with queries"),
            tuple(weeks),
            "Query dates in seven-day bins of each month (the last bin holds the month's remaining days), "
            f"or by month when the report covers more than {stats.WEEKLY_UP_TO} months.",
        )
    )
    return Series(
        "query_dates",
        "Queries by date",
        "dates",
        "queries",
        tuple({"dates": label, "queries": n} for label, n, _ in weeks),
        x_label="query dates",
        y_label="queries",
    )


def _horizon(con: duckdb.DuckDBPyConnection, metrics: dict[str, Any], tables: list[Table]) -> Series:
    rows = stats.horizon_counts(con)
    gaps = stats.value_counts(con, stats.HORIZON_GAPS)
    by_days: dict[str, int] = {}
    for days, _, n in rows:
        by_days[str(days)] = by_days.get(str(days), 0) + n
    metrics["horizon"] = {
        **summary(con, stats.HORIZON_GAPS),
        "queries_by_days": by_days,
        "mismatched": sum(n for days, gap, n in rows if days != gap),
    }
    tables.append(
        Table(
            "Horizons",
            ("Horizon (days)", "Query date - last history date (days)", "Queries"),
            tuple(rows),
            "Each query is asked at every horizon; a forecaster may read data up to its last history date.",
        )
    )
    bins = (
        [(str(gap), n) for gap, n in gaps.items()]
        if len(gaps) <= stats.MAX_BINS
        else stats.integer_bins(gaps)
    )
    return Series(
        "horizon",
        "Horizon: days from the last history date to the query date",
        "horizon_days",
        "queries",
        tuple({"horizon_days": label, "queries": n} for label, n in bins),
        x_label="days",
        y_label="queries",
    )
