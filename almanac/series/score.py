"""Scores of series forecasts and the naive baselines reported beside them.

Binary questions: the Brier score ``(p - outcome)^2`` (lower is better; always answering 0.5 scores 0.25).
Numeric questions: FutureX's clipped squared error ``max(0, 1 - ((y - y_hat) / sigma)^2)`` (its equation 2;
higher is better). Baselines need no knowledge of the world beyond the prompt's figures:

- ``no_change``: the latest figure stays (numeric: that figure; binary: "not higher", p = 0);
- ``last_trend``: the last change between the prompt's two latest figures continues, once per period up
  to the resolution (binary: p = 1 if that change was up, else 0);
- ``chance`` (binary only): p = 0.5.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from almanac.core.scoring import clipped_score

Row = Mapping[str, Any]
BASELINES = ("no_change", "last_trend", "chance")


def brier(probability: float, happened: bool) -> float:
    return (probability - (1.0 if happened else 0.0)) ** 2


def baseline_forecast(question: Row, baseline: str) -> float | None:
    """The baseline's forecast: a probability of "higher" (binary) or a number (numeric); None if it has
    nothing to go on (``last_trend`` with one figure, ``chance`` on a numeric question)."""
    values = [float(item["value"]) for item in question["prompt_values"]]
    latest = values[-1]
    change = values[-1] - values[-2] if len(values) >= 2 else None
    if question["kind"] == "binary":
        if baseline == "chance":
            return 0.5
        if baseline == "no_change":
            return 0.0
        return None if change is None else (1.0 if change > 0 else 0.0)
    if baseline == "no_change":
        return latest
    if baseline == "last_trend" and change is not None:
        return latest + change * _periods_ahead(question)
    return None


def _periods_ahead(question: Row) -> float:
    """Periods from the latest figure to the resolved one, measured in the spacing of the last two."""
    periods = [item["period_start"] for item in question["prompt_values"]]
    step: int = (periods[-1] - periods[-2]).days or 1
    ahead: int = (question["resolution_period"] - periods[-1]).days
    return max(1.0, ahead / step)


def score_question(question: Row, forecast: float) -> float:
    if question["kind"] == "binary":
        return brier(forecast, question["answer"] == "yes")
    return clipped_score(float(question["resolution_value"]), forecast, float(question["sigma"]))


def baseline_scores(questions: Sequence[Row]) -> dict[str, dict[str, Any]]:
    """Per kind and baseline: questions scored and the mean score; plus the base rate of "higher"."""
    report: dict[str, dict[str, Any]] = {}
    for kind in ("binary", "numeric"):
        rows = [q for q in questions if q["kind"] == kind]
        entry: dict[str, Any] = {"questions": len(rows)}
        if kind == "binary":
            entry["base_rate_higher"] = (
                round(sum(q["answer"] == "yes" for q in rows) / len(rows), 4) if rows else None
            )
        for name in BASELINES:
            scored = [
                score_question(q, forecast)
                for q in rows
                if (forecast := baseline_forecast(q, name)) is not None
            ]
            entry[name] = {
                "scored": len(scored),
                "mean": round(sum(scored) / len(scored), 4) if scored else None,
            }
        report[kind] = entry
    return report
