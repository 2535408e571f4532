"""Corpus statistics of the deduplicated articles, computed with DuckDB straight from Parquet."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any

from almanac.core.lazy import lazy_module
from almanac.core.markdown import markdown_table
from almanac.reports.views import parquet_view

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

WORD_COUNT_BINS = (100, 200, 400, 800, 1600, 3200)
# Dedup also drops articles published outside the months in scope; those are not duplicates.
DUPLICATE_REASONS = frozenset({"duplicate_id", "near_duplicate"})


def corpus_statistics(
    articles: list[Path], ingest_rejects: list[Path], dedup_rejects: Path
) -> dict[str, Any]:
    """Counts by source and month, word-count distribution, reject reasons and the dedup rate."""
    con = duckdb.connect()
    parquet_view(con, "articles", articles)
    parquet_view(con, "ingest_rejects", ingest_rejects)
    parquet_view(con, "dedup_rejects", [dedup_rejects])
    by_source_month = con.execute(
        "SELECT source_domain, publish_month, count(*) FROM articles GROUP BY ALL ORDER BY ALL"
    ).fetchall()
    words = con.execute(
        """SELECT count(*), min(word_count), quantile_cont(word_count, [0.1, 0.25, 0.5, 0.75, 0.9]),
                  max(word_count), avg(word_count) FROM articles"""
    ).fetchone()
    assert words is not None
    bins = _word_count_histogram(con)
    ingest_reasons = dict(
        con.execute("SELECT reason, count(*) FROM ingest_rejects GROUP BY 1 ORDER BY 1").fetchall()
    )
    dedup_reasons = dict(
        con.execute("SELECT reason, count(*) FROM dedup_rejects GROUP BY 1 ORDER BY 1").fetchall()
    )
    kept = int(words[0])
    removed = sum(n for reason, n in dedup_reasons.items() if reason in DUPLICATE_REASONS)
    quantiles = [round(float(q), 1) for q in words[2]] if kept else []
    return {
        "articles": kept,
        "sources": len({row[0] for row in by_source_month}),
        "articles_by_source_month": [
            {"source_domain": source, "publish_month": month, "articles": count}
            for source, month, count in by_source_month
        ],
        "word_count": {
            "min": words[1],
            "p10": quantiles[0] if quantiles else None,
            "p25": quantiles[1] if quantiles else None,
            "median": quantiles[2] if quantiles else None,
            "p75": quantiles[3] if quantiles else None,
            "p90": quantiles[4] if quantiles else None,
            "max": words[3],
            "mean": round(float(words[4]), 1) if kept else None,
            "histogram": bins,
        },
        "ingest_rejected_by_reason": ingest_reasons,
        "dedup_removed_by_reason": dedup_reasons,
        "dedup_rate": round(removed / (kept + removed), 4) if kept + removed else 0.0,
    }


def _word_count_histogram(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    edges = (0, *WORD_COUNT_BINS)
    cases = " ".join(
        f"WHEN word_count < {upper} THEN '{lower}-{upper - 1}'" for lower, upper in pairwise(edges)
    )
    rows = dict(
        con.execute(
            f"SELECT CASE {cases} ELSE '{edges[-1]}+' END AS bin, count(*) FROM articles GROUP BY 1"
        ).fetchall()
    )
    labels = [f"{lower}-{upper - 1}" for lower, upper in pairwise(edges)] + [f"{edges[-1]}+"]
    return [{"words": label, "articles": int(rows.get(label, 0))} for label in labels]


def corpus_markdown(stats: dict[str, Any]) -> str:
    months = sorted({row["publish_month"] for row in stats["articles_by_source_month"]})
    sources = sorted({row["source_domain"] for row in stats["articles_by_source_month"]})
    grid = {
        (row["source_domain"], row["publish_month"]): row["articles"]
        for row in stats["articles_by_source_month"]
    }
    source_rows = [
        [
            source,
            *(grid.get((source, month), 0) for month in months),
            sum(grid.get((source, m), 0) for m in months),
        ]
        for source in sources
    ]
    source_rows.append(
        ["**total**", *(sum(grid.get((s, m), 0) for s in sources) for m in months), stats["articles"]]
    )
    words = stats["word_count"]
    parts = [
        "# Corpus statistics (deduplicated CC-News articles)",
        "",
        f"{stats['articles']:,} articles from {stats['sources']} sources; dedup removed "
        f"{stats['dedup_rate']:.1%} of the in-scope articles as duplicates.",
        "",
        "## Articles by source and publish month",
        "",
        markdown_table(["source", *months, "total"], source_rows),
        "",
        "## Word counts",
        "",
        markdown_table(
            ["min", "p10", "p25", "median", "p75", "p90", "max", "mean"],
            [[words[key] for key in ("min", "p10", "p25", "median", "p75", "p90", "max", "mean")]],
        ),
        "",
        markdown_table(["words", "articles"], [[b["words"], b["articles"]] for b in words["histogram"]]),
        "",
        "## Dropped items",
        "",
        markdown_table(
            ["stage", "reason", "items"],
            [["ccnews_ingest", reason, n] for reason, n in stats["ingest_rejected_by_reason"].items()]
            + [["dedup", reason, n] for reason, n in stats["dedup_removed_by_reason"].items()],
        ),
        "",
    ]
    return "\n".join(parts)
