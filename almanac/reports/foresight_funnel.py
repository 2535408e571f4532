"""OpenForesight's Table-1 (the question funnel), Table-4 (answer types) and the split grid: the
``foresight_funnel`` stage's Markdown and JSON.

The funnel rows come from the one funnel implementation (almanac.reports.funnel.chained_funnel: a funnel
whose counts do not chain from one stage to the next is an error, because then some question went missing
without a reject row); answer types and splits from the ``released_questions`` view over the final split
Parquet files (almanac.reports.views).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from almanac.core.lazy import lazy_module
from almanac.core.markdown import markdown_table
from almanac.foresight.recipe import RECIPE
from almanac.foresight.split import SPLITS
from almanac.reports.funnel import FunnelStep, chained_records
from almanac.reports.views import parquet_view

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

# The Table-1 stages, in the recipe's order (almanac.foresight.recipe is the one place it is written).
OPENFORESIGHT_FUNNEL = tuple(
    FunnelStep(
        step.stage,
        step.label,
        step.unit,
        step.per_month,
        step.produces,
        f"Source {step.unit}" if step.produces else None,  # a producing step's items are its sources
    )
    for step in RECIPE.funnel()
)


def _released_questions(split_files: list[Path]) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    parquet_view(con, "released_questions", split_files)
    return con


def answer_type_rows(split_files: list[Path]) -> list[dict[str, Any]]:
    """Questions per answer class over the final splits, most frequent first."""
    if not split_files:
        return []
    counts = (
        _released_questions(split_files)
        .execute(
            "SELECT coalesce(answer_class, '(none)') AS answer_class, count(*) AS questions "
            "FROM released_questions GROUP BY 1 ORDER BY questions DESC, answer_class"
        )
        .fetchall()
    )
    total = sum(int(count) for _, count in counts)
    return [
        {"answer_class": str(name), "questions": int(count), "share": int(count) / total}
        for name, count in counts
    ]


def split_rows(split_files: list[Path]) -> list[dict[str, Any]]:
    """Questions per split and resolution month."""
    if not split_files:
        return []
    counts = (
        _released_questions(split_files)
        .execute(
            "SELECT split, strftime(resolution_date, '%Y-%m') AS resolution_month, count(*) "
            "FROM released_questions GROUP BY ALL ORDER BY ALL"
        )
        .fetchall()
    )
    return [
        {"split": str(split), "resolution_month": str(month), "questions": int(count)}
        for split, month, count in counts
    ]


def funnel_markdown(
    funnel: list[dict[str, Any]], answer_types: list[dict[str, Any]], splits: list[dict[str, Any]]
) -> str:
    stage_lines: list[list[Any]] = []
    for row in funnel:
        if row["source_label"]:
            stage_lines.append([row["source_label"], f"{row['items_in']:,}"])
        stage_lines.append([row["label"], f"{row['count']:,} ({row['share']:.1%})"])
    reject_lines = [
        [row["label"], reason, count] for row in funnel for reason, count in row["rejected_by_reason"].items()
    ]
    type_lines = [[t["answer_class"], t["questions"], f"{t['share']:.1%}"] for t in answer_types]
    parts = [
        "# Question funnel",
        "",
        "Questions remaining after each stage, as a share of the generated questions.",
        "",
        markdown_table(["Stage", "Number (% of generated)"], stage_lines),
        "",
        "## Rejected by reason",
        "",
        markdown_table(["Stage", "Reason", "Rejected"], reject_lines),
        "",
        "## Answer types in the final splits",
        "",
        markdown_table(["Answer type", "Questions", "Share"], type_lines),
        "",
        "## Questions per split and resolution month",
        "",
        _split_grid(splits),
        "",
    ]
    return "\n".join(parts)


def _split_grid(splits: list[dict[str, Any]]) -> str:
    months = sorted({row["resolution_month"] for row in splits})
    present = {row["split"] for row in splits}
    names = [s for s in SPLITS if s in present] + sorted(present - set(SPLITS))
    grid = {(row["split"], row["resolution_month"]): row["questions"] for row in splits}
    lines = [
        [name, *(grid.get((name, m), 0) for m in months), sum(grid.get((name, m), 0) for m in months)]
        for name in names
    ]
    return markdown_table(["Split", *months, "Total"], lines)


def funnel_metrics(
    funnel: list[dict[str, Any]], answer_types: list[dict[str, Any]], splits: list[dict[str, Any]]
) -> dict[str, Any]:
    """The same numbers as JSON, for ``dvc metrics``."""
    split_totals: dict[str, int] = {}
    for row in splits:
        split_totals[row["split"]] = split_totals.get(row["split"], 0) + row["questions"]
    producing = [row for row in funnel if row["produced"] is not None]
    return {
        "source_items": producing[0]["items_in"] if producing else None,
        "generated": producing[0]["produced"] if producing else None,
        "final": funnel[-1]["count"] if funnel else 0,
        "final_share": round(funnel[-1]["share"], 4) if funnel else 0.0,
        "stages": chained_records(funnel),
        "answer_types": {row["answer_class"]: row["questions"] for row in answer_types},
        "questions_by_split": split_totals,
        "questions_by_split_month": splits,
    }
