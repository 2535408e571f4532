"""Funnel steps of any style, summed with DuckDB from the stages' metrics JSON files.

Every stage metrics file carries items_in, items_out, rejected and rejected_by_reason. Unlike the
OpenForesight Table-1 funnel (almanac.foresight.funnel) the steps here need not chain: the units change
along the OpenForecast and MIRAI branches (articles, events, quads, queries), so each step says its unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

from almanac.core.io import read_json
from almanac.core.layout import METRICS
from almanac.reports.model import Series, Table
from almanac.stats.stage_metrics import sum_stage_metrics

# The tracked counters of almanac.llm.accounting (``llm`` in a stage's metrics, ``<role>.<counter>``) a report
# sums over its steps and roles: the requests the data needed, those refused (no usable answer), and the
# tokens and estimated cost of the answers used. They are the same on every run of the same inputs; what one
# run sent or found cached is in the untracked run record, and other keys of older metrics are ignored.
LLM_COUNTERS = ("requests", "refused", "prompt_tokens", "completion_tokens", "cost_usd")


@dataclass(frozen=True)
class FunnelStep:
    stage: str
    label: str
    unit: str  # what items_in/items_out count: "articles", "questions", "events", ...
    per_month: bool = True  # reports/metrics/<stage>/<month>.json, else reports/metrics/<stage>.json


def funnel_steps(
    steps: Sequence[FunnelStep], months: Sequence[str], metrics_dir: Path = METRICS
) -> list[dict[str, Any]]:
    """One row per step: in, out, rejected and rejects by reason, summed over ``months`` for per-month steps.

    Raises when a metrics file is missing or its counts do not add up, since a funnel with a hole in it
    would be published as if nothing was lost.
    """
    con = duckdb.connect()
    rows = []
    for step in steps:
        files = (
            [metrics_dir / step.stage / f"{month}.json" for month in months]
            if step.per_month
            else [metrics_dir / f"{step.stage}.json"]
        )
        missing = [str(path) for path in files if not path.is_file()]
        if missing:
            raise FileNotFoundError(f"funnel: stage {step.stage} has no metrics file(s) {missing}")
        rows.append({**_totals(con, step, files, months), "llm": _llm_counters(files)})
    return rows


def _llm_counters(files: Sequence[Path]) -> dict[str, float]:
    """``LLM_COUNTERS`` summed over every role of ``files`` (zeros for a stage that asks no LLM)."""
    totals: dict[str, float] = dict.fromkeys(LLM_COUNTERS, 0)
    for path in files:
        for label, amount in (read_json(path).get("llm") or {}).items():
            counter = label.rpartition(".")[2]
            if counter in totals:
                totals[counter] += amount
    return totals


def llm_usage(rows: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The LLM counters of every funnel step summed: what the calls behind the report's rows cost."""
    totals: dict[str, float] = dict.fromkeys(LLM_COUNTERS, 0)
    for row in rows:
        for counter, amount in row["llm"].items():
            totals[counter] += amount
    totals["cost_usd"] = round(float(totals["cost_usd"]), 6)  # no float noise from the sum in the JSON
    return totals


def _totals(
    con: duckdb.DuckDBPyConnection, step: FunnelStep, files: list[Path], months: Sequence[str]
) -> dict[str, Any]:
    totals = sum_stage_metrics(con, step.stage, files)
    by_reason = totals.by_reason
    items_in, items_out, rejected = totals.items_in, totals.items_out, totals.rejected
    if items_in != items_out + rejected or sum(by_reason.values()) != rejected:
        raise ValueError(
            f"funnel: stage {step.stage}: in={items_in} out={items_out} rejected={rejected} "
            f"by reason={sum(by_reason.values())} do not add up"
        )
    return {
        "stage": step.stage,
        "label": step.label,
        "unit": step.unit,
        "scope": ", ".join(months) if step.per_month else "all months",
        "items_in": items_in,
        "items_out": items_out,
        "rejected": rejected,
        "rejected_by_reason": by_reason,
    }


def funnel_table(rows: Sequence[dict[str, Any]]) -> Table:
    return Table(
        "Funnel",
        ("Step", "Stage", "Unit", "Scope", "In", "Out", "Rejected", "Kept"),
        tuple(
            (
                row["label"],
                row["stage"],
                row["unit"],
                row["scope"],
                row["items_in"],
                row["items_out"],
                row["rejected"],
                f"{row['items_out'] / row['items_in']:.1%}" if row["items_in"] else "-",
            )
            for row in rows
        ),
        "Items each stage read, handed on and rejected (reasons below), from the stages' metrics files.",
    )


def rejects_table(rows: Sequence[dict[str, Any]]) -> Table:
    return Table(
        "Rejected by reason",
        ("Stage", "Reason", "Rejected"),
        tuple(
            (row["stage"], reason, count)
            for row in rows
            for reason, count in row["rejected_by_reason"].items()
        ),
    )


def funnel_series(rows: Sequence[dict[str, Any]]) -> Series:
    """The share each step kept, labelled with its counts.

    Steps count different units (files, rows, questions), and on real months they differ by orders of
    magnitude, so bars of raw counts would hide the small steps; shares put every step on one scale.
    """
    return Series(
        "funnel",
        "Share of its input each stage kept",
        "step",
        "kept_percent",
        tuple(
            {
                "step": f"{row['label']} ({row['unit']})",
                "kept_percent": round(100 * row["items_out"] / row["items_in"], 1)
                if row["items_in"]
                else 0.0,
                "kept": f"{row['items_out']:,} of {row['items_in']:,}",
            }
            for row in rows
        ),
        kind="barh",
        x_label="",
        y_label="% of the step's input kept",
        bar_labels="kept",
    )


def funnel_metrics(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Funnel rows keyed by stage, in the shape ``dvc metrics diff`` compares well (flat numbers)."""
    return {
        row["stage"]: {
            "in": row["items_in"],
            "out": row["items_out"],
            "rejected": row["rejected"],
            "rejected_by_reason": row["rejected_by_reason"],
        }
        for row in rows
    }
