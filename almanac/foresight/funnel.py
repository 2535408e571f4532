"""The question funnel (how many questions survive each stage) and the answer-type and split tables.

Everything is read with DuckDB from what the stages wrote: their metrics JSON files for the funnel and
the final split Parquet files for the answer types. A funnel whose counts do not chain from one stage
to the next is an error, because then some question went missing without a reject row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from almanac.core.layout import METRICS, metrics_path
from almanac.foresight.recipe import RECIPE
from almanac.foresight.split import SPLITS
from almanac.stats.markdown import markdown_table
from almanac.stats.stage_metrics import sql_paths, sum_stage_metrics


@dataclass(frozen=True)
class FunnelStage:
    stage: str
    label: str
    per_month: bool = True  # metrics in reports/metrics/<stage>/<month>.json, else <stage>.json
    # For a stage that creates new items from its inputs (qgen: questions from articles): the metrics key
    # counting what it created. Its items are then the sources, labelled ``source_label``.
    produces: str | None = None
    source_label: str | None = None


# The Table-1 stages, in the recipe's order (almanac.foresight.recipe is the one place it is written).
OPENFORESIGHT_FUNNEL = tuple(
    FunnelStage(
        step.stage,
        step.label,
        step.per_month,
        step.produces,
        f"Source {step.unit}" if step.produces else None,  # a producing step's items are its sources
    )
    for step in RECIPE.funnel()
)


def funnel_rows(metrics_dir: Path, months: list[str], stages: Sequence[FunnelStage]) -> list[dict[str, Any]]:
    """One row per stage, summed over months: counts, rejects by reason and the share still remaining.

    ``count`` is what the stage hands on (its items_out, or for a producing stage the number it
    created) and ``share`` is count over the first producing stage's count (else the first items_in).
    """
    con = duckdb.connect()
    rows: list[dict[str, Any]] = []
    for stage in stages:
        files = _metric_files(metrics_dir, months, stage)
        row = _stage_totals(con, stage, files)
        if row["items_in"] != row["items_out"] + row["rejected"]:
            raise ValueError(
                f"funnel: stage {stage.stage}: items_in={row['items_in']} != items_out={row['items_out']}"
                f" + rejected={row['rejected']}"
            )
        if sum(row["rejected_by_reason"].values()) != row["rejected"]:
            raise ValueError(
                f"funnel: stage {stage.stage}: rejected={row['rejected']} but rejected_by_reason sums to "
                f"{sum(row['rejected_by_reason'].values())}"
            )
        if rows and row["items_in"] != rows[-1]["count"]:
            raise ValueError(
                f"funnel: stage {stage.stage} read {row['items_in']} items but the previous stage "
                f"{rows[-1]['stage']} handed on {rows[-1]['count']}; the counts do not chain"
            )
        rows.append(row)
    producing = [row for row in rows if row["produced"] is not None]
    base = producing[0]["count"] if producing else (rows[0]["items_in"] if rows else 0)
    for row in rows:
        row["share"] = row["count"] / base if base else 0.0
    return rows


def _metric_files(metrics_dir: Path, months: list[str], stage: FunnelStage) -> list[Path]:
    # metrics_path gives the repository layout; re-root it under metrics_dir.
    layout = (
        [metrics_path(stage.stage, m) for m in months] if stage.per_month else [metrics_path(stage.stage)]
    )
    files = [metrics_dir / path.relative_to(METRICS) for path in layout]
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"funnel: stage {stage.stage} has no metrics file(s): {missing}")
    return files


def _stage_totals(con: duckdb.DuckDBPyConnection, stage: FunnelStage, files: list[Path]) -> dict[str, Any]:
    try:
        totals = sum_stage_metrics(con, stage.stage, files, stage.produces)
    except ValueError as error:
        raise ValueError(f"funnel: {error}") from error
    created: int | None = None
    if stage.produces is not None:
        if totals.extra is None:
            raise ValueError(f"funnel: stage {stage.stage}: metrics lack {stage.produces!r}")
        created = totals.extra
    items_out = totals.items_out
    return {
        "stage": stage.stage,
        "label": stage.label,
        "source_label": stage.source_label,
        "items_in": totals.items_in,
        "items_out": items_out,
        "rejected": totals.rejected,
        "rejected_by_reason": dict(sorted(totals.by_reason.items())),  # Table-1 lists reasons by name
        "produced": created,
        "count": created if created is not None else items_out,
    }


def answer_type_rows(split_files: list[Path]) -> list[dict[str, Any]]:
    """Questions per answer class over the final splits, most frequent first."""
    if not split_files:
        return []
    counts = (
        duckdb.connect()
        .execute(
            f"SELECT coalesce(answer_class, '(none)') AS answer_class, count(*) AS questions "
            f"FROM read_parquet({sql_paths(split_files)}) GROUP BY 1 ORDER BY questions DESC, answer_class"
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
        duckdb.connect()
        .execute(
            f"SELECT split, strftime(resolution_date, '%Y-%m') AS resolution_month, count(*) "
            f"FROM read_parquet({sql_paths(split_files)}) GROUP BY ALL ORDER BY ALL"
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
        "stages": [
            {
                "stage": row["stage"],
                "label": row["label"],
                "items_in": row["items_in"],
                "items_out": row["items_out"],
                "rejected": row["rejected"],
                "count": row["count"],
                "share": round(row["share"], 4),
                "rejected_by_reason": row["rejected_by_reason"],
            }
            for row in funnel
        ],
        "answer_types": {row["answer_class"]: row["questions"] for row in answer_types},
        "questions_by_split": split_totals,
        "questions_by_split_month": splits,
    }
