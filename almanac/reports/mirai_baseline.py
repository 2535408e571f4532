"""The MIRAI report's reference numbers: the frequency baseline scored on each month's queries.

Each month's released queries (``data/mirai/queries/<month>.parquet``) get the frequency baseline's
forecasts from the cleaned quads (``data/gdelt/clean/quads.parquet``, only days up to the query date minus
``scorer.baseline.horizon_days``; see almanac/mirai/baseline.py) and are scored with the scorer's own
settings (``scorer`` in params), so a model's score can be read against it month by month.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.io import read_parquet
from almanac.core.layout import gdelt_quads, mirai_queries
from almanac.core.params import parse_section
from almanac.mirai.baseline import read_history
from almanac.mirai.score import SET_METRICS, ScorerConfig, score_baseline
from almanac.reports.model import Table
from almanac.reports.scope import ReportScope

QUADS = gdelt_quads()  # the frequency baseline's history
QUERY_COLUMNS = ("query_id", "date", "subject", "object", "answers", "answer_roots")
LEVELS = ("first_level", "second_level")
HEADERS = (
    "Month",
    "Queries",
    "Empty forecasts",
    "1st-level P %",
    "1st-level R %",
    "1st-level F1 %",
    "2nd-level P %",
    "2nd-level R %",
    "2nd-level F1 %",
    "Binary KL",
    "Quad KL",
)


def baseline_section(
    scope: ReportScope, metrics: dict[str, Any], tables: list[Table], quads: Path = QUADS
) -> list[str]:
    """Add the per-month baseline table and ``metrics["baseline"]``; returns the notes for the card."""
    config = parse_section(ScorerConfig, scope.params, "scorer")
    if not quads.exists():
        metrics["baseline"] = None
        return [f"The frequency baseline was not computed: {quads} is missing."]
    history = read_history(quads)
    per_month = {month: q for month in scope.months if (q := _queries(month)) is not None}
    scored = {month: _summary(score_baseline(q, history, config)) for month, q in per_month.items()}
    rows = [_row(month, summary) for month, summary in scored.items()]
    if len(scored) > 1:
        together = pa.concat_tables(list(per_month.values()))
        scored_all = _summary(score_baseline(together, history, config))
        rows.append(_row("all months", scored_all))
    metrics["baseline"] = {
        **{key: getattr(config.baseline, key) for key in ("window_days", "top_k", "horizon_days")},
        "quad_mapping": config.quad_mapping,
        "skipped_quads": dict(sorted(history.skipped.items())),
        "by_month": scored,
    }
    baseline = config.baseline
    tables.append(
        Table(
            "Frequency baseline per month",
            HEADERS,
            tuple(rows),
            f"Each query's forecast is the {baseline.top_k} relations the subject took towards the object "
            f"on the most days in the {baseline.window_days} days up to the query date minus "
            f"{baseline.horizon_days} day(s) (nothing from the query day or later), scored like any model "
            f"(macro averages, quad mapping {config.quad_mapping}); empty forecasts are pairs with no "
            "history in the window.",
        )
    )
    skipped = sum(history.skipped.values())
    return (
        [f"The frequency baseline skipped {skipped} unusable quad rows: {dict(history.skipped)}."]
        if skipped
        else []
    )


def _queries(month: str) -> pa.Table | None:
    path = mirai_queries(month)
    if not path.exists():
        return None
    table = read_parquet(path, columns=list(QUERY_COLUMNS))
    return table if table.num_rows else None


def _summary(report: Mapping[str, Any]) -> dict[str, Any]:
    mean = report["mean"]
    return {
        "queries": report["queries"],
        "empty_forecasts": report["predictions"]["empty"],
        **{level: {name: round(mean[level][name], 4) for name in SET_METRICS} for level in LEVELS},
        "binary_kl": round(mean["binary_kl"], 4),
        "quad_kl": round(mean["quad_kl"], 4),
    }


def _row(label: str, summary: Mapping[str, Any]) -> tuple[Any, ...]:
    percents = [f"{100 * summary[level][name]:.1f}" for level in LEVELS for name in SET_METRICS]
    kls = [f"{summary['binary_kl']:.3f}", f"{summary['quad_kl']:.3f}"]
    return (label, summary["queries"], summary["empty_forecasts"], *percents, *kls)
