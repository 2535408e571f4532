"""The funnel of every style, summed with DuckDB from the stages' metrics JSON files: one implementation.

Every stage metrics file carries items_in, items_out, rejected and rejected_by_reason, read through the
``stage_metrics`` view (almanac.reports.views). Two readings of the same rows:

- ``funnel_steps``: each step on its own, with its unit and LLM counters, for the per-style reports (and so
  the card). The steps need not chain: the units change along the OpenForecast and MIRAI branches
  (articles, events, quads, queries).
- ``chained_funnel``: OpenForesight's Table-1 (almanac.reports.foresight_funnel), where every step must read
  what the previous one handed on, and a producing step (qgen: questions from articles) sets the base of
  the share still remaining.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from almanac.core.io import read_json
from almanac.core.layout import METRICS, metrics_path
from almanac.core.lazy import lazy_module
from almanac.reports.model import Series, Table
from almanac.reports.views import sum_stage_metrics

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

# The tracked counters of almanac.llm.accounting (``llm`` in a stage's metrics, ``<role>.<counter>``) a report
# sums over its steps and roles: the requests the data needed, those refused (no usable answer), and the
# tokens and estimated cost of the answers used. They are the same on every run of the same inputs; what one
# run sent or found cached is in the untracked run record, and other keys of older metrics are ignored.
LLM_COUNTERS = ("requests", "refused", "prompt_tokens", "completion_tokens", "cost_usd")


@dataclass(frozen=True)
class FunnelStep:
    stage: str
    label: str
    unit: str = ""  # what items_in/items_out count: "articles", "questions", "events", ...
    per_month: bool = True  # reports/metrics/<stage>/<month>.json, else reports/metrics/<stage>.json
    # For a step that creates new items from its inputs (qgen: questions from articles): the metrics key
    # counting what it created. Its inputs are then the sources, labelled ``source_label``.
    produces: str | None = None
    source_label: str | None = None


def step_files(step: FunnelStep, months: Sequence[str], metrics_dir: Path = METRICS) -> list[Path]:
    """The metrics files of ``step`` over ``months`` (one per month, or its single file), all present."""
    layout = (
        [metrics_path(step.stage, month) for month in months]
        if step.per_month
        else [metrics_path(step.stage)]
    )
    files = [metrics_dir / path.relative_to(METRICS) for path in layout]  # the layout, re-rooted
    missing = [str(path) for path in files if not path.is_file()]
    if missing:
        raise FileNotFoundError(f"funnel: stage {step.stage} has no metrics file(s) {missing}")
    return files


def step_counts(con: duckdb.DuckDBPyConnection, step: FunnelStep, files: Sequence[Path]) -> dict[str, Any]:
    """In, out, rejected, rejects by reason (largest first) and what a producing step created, checked.

    Raises when the counts do not add up, since a funnel with a hole in it would be published as if nothing
    was lost.
    """
    try:
        totals = sum_stage_metrics(con, step.stage, files, step.produces)
    except ValueError as error:
        raise ValueError(f"funnel: {error}") from error
    if totals.items_in != totals.items_out + totals.rejected:
        raise ValueError(
            f"funnel: stage {step.stage}: items_in={totals.items_in} != items_out={totals.items_out}"
            f" + rejected={totals.rejected}"
        )
    if sum(totals.by_reason.values()) != totals.rejected:
        raise ValueError(
            f"funnel: stage {step.stage}: rejected={totals.rejected} but rejected_by_reason sums to "
            f"{sum(totals.by_reason.values())}"
        )
    if step.produces is not None and totals.extra is None:
        raise ValueError(f"funnel: stage {step.stage}: metrics lack {step.produces!r}")
    return {
        "stage": step.stage,
        "label": step.label,
        "items_in": totals.items_in,
        "items_out": totals.items_out,
        "rejected": totals.rejected,
        "rejected_by_reason": totals.by_reason,
        "produced": totals.extra if step.produces is not None else None,
    }


def funnel_steps(
    steps: Sequence[FunnelStep], months: Sequence[str], metrics_dir: Path = METRICS
) -> list[dict[str, Any]]:
    """One row per step: in, out, rejected and rejects by reason, summed over ``months`` for per-month steps,
    with the step's unit, scope and LLM counters."""
    con = duckdb.connect()
    rows = []
    for step in steps:
        files = step_files(step, months, metrics_dir)
        counts = step_counts(con, step, files)
        rows.append(
            {
                **{key: counts[key] for key in ("stage", "label")},
                "unit": step.unit,
                "scope": ", ".join(months) if step.per_month else "all months",
                **{key: counts[key] for key in ("items_in", "items_out", "rejected", "rejected_by_reason")},
                "produced": counts["produced"],  # None unless the step makes new items (qgen: questions)
                "llm": _llm_counters(files),
            }
        )
    return rows


def chained_funnel(
    steps: Sequence[FunnelStep], months: Sequence[str], metrics_dir: Path = METRICS
) -> list[dict[str, Any]]:
    """One row per step whose counts must chain: each step read what the previous one handed on.

    ``count`` is what the step hands on (its items_out, or for a producing step the number it created) and
    ``share`` is count over the first producing step's count (else the first items_in). Rejects are listed
    by reason name, as Table-1 lists them.
    """
    con = duckdb.connect()
    rows: list[dict[str, Any]] = []
    for step in steps:
        counts = step_counts(con, step, step_files(step, months, metrics_dir))
        if rows and counts["items_in"] != rows[-1]["count"]:
            raise ValueError(
                f"funnel: stage {step.stage} read {counts['items_in']} items but the previous stage "
                f"{rows[-1]['stage']} handed on {rows[-1]['count']}; the counts do not chain"
            )
        produced = counts["produced"]
        rows.append(
            {
                **counts,
                "source_label": step.source_label,
                "rejected_by_reason": dict(sorted(counts["rejected_by_reason"].items())),
                "count": produced if produced is not None else counts["items_out"],
            }
        )
    producing = [row for row in rows if row["produced"] is not None]
    base = producing[0]["count"] if producing else (rows[0]["items_in"] if rows else 0)
    for row in rows:
        row["share"] = row["count"] / base if base else 0.0
    return rows


def chained_records(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of :func:`chained_funnel` as the JSON a funnel stage writes (shares to 4 decimals)."""
    return [
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
        for row in rows
    ]


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
    """Funnel rows keyed by stage, in the shape ``dvc metrics diff`` compares well (flat numbers), each with
    the unit its counts are in (the steps of one style count articles, then questions, ...)."""
    metrics: dict[str, Any] = {}
    for index, row in enumerate(rows):
        step: dict[str, Any] = {
            "unit": row["unit"],
            "in": row["items_in"],
            "out": row["items_out"],
            "rejected": row["rejected"],
            "rejected_by_reason": row["rejected_by_reason"],
        }
        if row.get("produced") is not None:  # qgen: 30 articles in, 13 gave questions, 19 questions made
            step["made"] = row["produced"]
            step["made_unit"] = rows[index + 1]["unit"] if index + 1 < len(rows) else row["unit"]
        metrics[row["stage"]] = step
    return metrics
