"""The series-style report: questions per provider, horizon and split, the base rate of "higher", and the
naive baselines' scores (Brier for binary, FutureX's clipped score for numeric) beside chance.

Reads the released splits (``data/series/splits/``) and the two stages' metrics. The series have their own
calendar (``series.split``), so the report always covers the whole style, whatever months it is asked for.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from almanac.reports.funnel import (
    FunnelStep,
    funnel_metrics,
    funnel_series,
    funnel_steps,
    funnel_table,
    llm_usage,
)
from almanac.reports.model import Panel, Report, Series, Table
from almanac.reports.scope import ReportScope
from almanac.reports.styles import SPLIT_ORDER, get_style, read_split_tables
from almanac.reports.summary import style_summary
from almanac.series.recipe import RECIPE
from almanac.series.score import BASELINES, baseline_scores

Row = Mapping[str, Any]
SERIES = ("split_counts", "horizon", "funnel")
PANELS = (Panel("1_overview", "Series: questions by split and horizon, and the funnel", SERIES),)
# The recipe's steps, in its order (almanac.series.recipe).
FUNNEL = tuple(FunnelStep(step.stage, step.label, step.unit, step.per_month) for step in RECIPE.funnel())


def build_report(scope: ReportScope) -> Report:
    tables_by_key = read_split_tables(get_style("series"), None)
    rows = [row for table in tables_by_key.values() for row in table.to_pylist()]
    metrics: dict[str, Any] = {"questions": len(rows)}
    tables: list[Table] = []
    released: dict[str, dict[str, int]] = {}
    for row in rows:
        month = row["resolution_date"].strftime("%Y-%m")
        by_month = released.setdefault(row["split"], {})
        by_month[month] = by_month.get(month, 0) + 1
    series = [_split_counts(rows, metrics, tables), _horizons(rows, metrics, tables)]
    _baselines(rows, metrics, tables)
    _sigma(rows, metrics, tables)
    notes_context = _news_context(rows, metrics, tables)
    funnel = funnel_steps(FUNNEL, ())
    metrics["funnel"] = funnel_metrics(funnel)
    metrics["llm"] = llm_usage(funnel)
    tables.append(funnel_table(funnel))
    series.append(funnel_series(funnel))
    notes = [
        "Series questions are templated and resolve from the series itself: no language model wrote or "
        "checked any of them.",
        "The report covers every question of the style: its splits are months of series.split (by "
        "resolution date), not the news months.",
        notes_context,
    ]
    if any(row["values_may_be_revised"] for row in rows):
        notes.append(
            f"{sum(bool(row['values_may_be_revised']) for row in rows)} questions come from series without "
            "release dates (series.questions.allow_unvintaged): each value is dated by the lag rule and may "
            "be a later revision of its first print, so their prompts may carry information published "
            "after the forecast date. Use vintaged series (ALFRED) for a leak-free evaluation."
        )
    return Report(
        "series",
        (),
        metrics,
        tuple(series),
        tuple(tables),
        tuple(notes),
        summary=style_summary("series", released, metrics, "questions") if scope.whole else None,
        panels=PANELS if scope.whole else (),
        authorship="Every question is written from a fixed template and resolved from the series values; "
        "no language model ran.",
    )


def _split_order(split: str) -> int:
    return SPLIT_ORDER.index(split) if split in SPLIT_ORDER else len(SPLIT_ORDER)


def _split_counts(rows: Sequence[Row], metrics: dict[str, Any], tables: list[Table]) -> Series:
    keys = Counter(
        (str(r["provider"]), int(r["horizon_days"]), str(r["split"]), str(r["kind"])) for r in rows
    )
    table_rows = sorted(
        {(provider, horizon, split) for provider, horizon, split, _ in keys},
        key=lambda k: (k[0], k[1], _split_order(k[2])),
    )
    metrics["questions_by_split"] = dict(
        sorted(Counter(str(r["split"]) for r in rows).items(), key=lambda kv: _split_order(kv[0]))
    )
    metrics["questions_by_provider"] = dict(sorted(Counter(str(r["provider"]) for r in rows).items()))
    metrics["series"] = len({r["series_id"] for r in rows})
    tables.append(
        Table(
            "Questions per provider, horizon and split",
            ("Provider", "Horizon (days)", "Split", "Binary", "Numeric"),
            tuple(
                (p, h, s, keys.get((p, h, s, "binary"), 0), keys.get((p, h, s, "numeric"), 0))
                for p, h, s in table_rows
            ),
            "Each (series, forecast date, horizon) asks one binary and one numeric question.",
        )
    )
    return Series(
        "split_counts",
        "Questions per split",
        "split",
        "questions",
        tuple({"split": split, "questions": n} for split, n in metrics["questions_by_split"].items()),
        y_label="questions",
    )


def _horizons(rows: Sequence[Row], metrics: dict[str, Any], tables: list[Table]) -> Series:
    counts = Counter(int(r["horizon_days"]) for r in rows)
    metrics["questions_by_horizon"] = {str(h): counts[h] for h in sorted(counts)}
    tables.append(
        Table(
            "Questions per horizon",
            ("Horizon (days)", "Questions"),
            tuple((h, counts[h]) for h in sorted(counts)),
        )
    )
    return Series(
        "horizon",
        "Questions per horizon",
        "horizon_days",
        "questions",
        tuple({"horizon_days": str(h), "questions": counts[h]} for h in sorted(counts)),
        x_label="days from forecast date to resolution date",
        y_label="questions",
    )


def _baselines(rows: Sequence[Row], metrics: dict[str, Any], tables: list[Table]) -> None:
    splits = sorted({str(r["split"]) for r in rows}, key=_split_order)
    by_split = {split: baseline_scores([r for r in rows if r["split"] == split]) for split in splits}
    metrics["baselines"] = {"all": baseline_scores(rows), **by_split}
    table_rows = []
    for scope, scores in metrics["baselines"].items():
        binary, numeric = scores["binary"], scores["numeric"]
        table_rows.append(
            (
                scope,
                binary["questions"],
                binary["base_rate_higher"],
                *(binary[name]["mean"] for name in BASELINES),
                numeric["questions"],
                *(numeric[name]["mean"] for name in BASELINES if name != "chance"),
            )
        )
    tables.append(
        Table(
            'Base rate of "higher" and the naive baselines',
            (
                "Split",
                "Binary questions",
                "Base rate of yes",
                "Brier: no change",
                "Brier: last trend",
                "Brier: chance (0.5)",
                "Numeric questions",
                "Clipped score: no change",
                "Clipped score: last trend",
            ),
            tuple(table_rows),
            "Brier: lower is better (always 0.5 scores 0.25); FutureX's clipped score max(0, 1 - ((y - y^)/"
            "sigma)^2): higher is better. The baselines see only the prompt's figures.",
        )
    )


def _sigma(rows: Sequence[Row], metrics: dict[str, Any], tables: list[Table]) -> None:
    numeric = [r for r in rows if r["kind"] == "numeric"]
    sources = Counter(str(r["sigma_source"]) for r in numeric)
    metrics["sigma_sources"] = dict(sorted(sources.items()))
    tables.append(
        Table(
            "Where each numeric question's sigma comes from",
            ("Sigma source", "Questions"),
            tuple(sorted(sources.items())),
            "recent_values: the standard deviation of the series' last series.questions.sigma_window values "
            "known on the resolution date (FutureX's rule); fallback_relative: a share of |answer| "
            "(flagged).",
        )
    )


def _news_context(rows: Sequence[Row], metrics: dict[str, Any], tables: list[Table]) -> str:
    """Questions with FutureSim news chunks available by their forecast date (almanac.series.context)."""
    with_context = [row for row in rows if row.get("news_context")]
    chunks = sum(len(row.get("news_context") or ()) for row in rows)
    metrics["news_context"] = {"questions_with_context": len(with_context), "chunks": chunks}
    splits = sorted({str(r["split"]) for r in rows}, key=_split_order)
    tables.append(
        Table(
            "News context (FutureSim chunks published by the forecast date)",
            ("Split", "Questions", "With context", "Chunks"),
            tuple(
                (
                    split,
                    sum(1 for r in rows if r["split"] == split),
                    sum(1 for r in with_context if r["split"] == split),
                    sum(len(r.get("news_context") or ()) for r in rows if r["split"] == split),
                )
                for split in splits
            ),
            "At most futuresim.retrieval.k chunks per question, each published (its whole date interval) "
            "on or before the question's forecast date.",
        )
    )
    if with_context:
        return f"{len(with_context)} of {len(rows)} questions carry news context ({chunks} chunks)."
    return (
        f"No question carries news context (0 of {len(rows)}): no chunk of the FutureSim index was "
        "published by any forecast date (on the sample the series end in 2009, the news is of 2025). "
        "This is the leak-free result, not a failure."
    )
