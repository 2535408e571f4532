"""FutureSim's scores for one held forecast (paper, appendix G).

A forecast is up to five distinct outcomes with probabilities p >= 0 summing to at most 1 (the rest is
"none of these"). With y the gold answer, and outcomes matched to it by the judge:

    BSS = 1 - sum over outcomes and y of (p(o) - [o = y])^2

so a sure correct forecast scores 1, no forecast 0 (the constant predictor: the skill reference) and all
mass on a wrong outcome -1. The multi-category Brier score is ``1 - BSS`` (no forecast: 1), so the Brier
skill score against the no-forecast predictor, ``1 - Brier / 1``, is the paper's BSS. Accuracy asks only
whether the most probable outcome matches. Should a judge match two outcomes of one forecast (they are
meant to be distinct), only the more probable counts as y; the other is scored as wrong, so listing
paraphrases of one guess can never earn more than the guess alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from almanac.core.text import fold

MAX_OUTCOMES = 5
_SUM_TOLERANCE = 1e-6


class ForecastError(ValueError):
    """A submission the environment refuses, with the reason in one line."""


@dataclass(frozen=True)
class Forecast:
    """Outcomes, most probable first (ties by name), as (outcome, probability)."""

    outcomes: tuple[tuple[str, float], ...]

    @property
    def top(self) -> str | None:
        return self.outcomes[0][0] if self.outcomes else None


def forecast_from(outcomes: Mapping[str, float] | Sequence[Sequence[object]]) -> Forecast:
    """Validate a submission: 1..5 outcomes, distinct after folding case, each p in [0, 1], sum <= 1."""
    pairs = list(outcomes.items()) if isinstance(outcomes, Mapping) else [tuple(pair) for pair in outcomes]
    if not 1 <= len(pairs) <= MAX_OUTCOMES:
        raise ForecastError(f"a forecast names 1 to {MAX_OUTCOMES} outcomes, got {len(pairs)}")
    cleaned: list[tuple[str, float]] = []
    seen: set[str] = set()
    for pair in pairs:
        if len(pair) != 2:
            raise ForecastError(f"an outcome is [name, probability], got {list(pair)!r}")
        name, raw = " ".join(str(pair[0]).split()), pair[1]
        if not name:
            raise ForecastError("an outcome has an empty name")
        if fold(name) in seen:
            raise ForecastError(f"outcome {name!r} is named twice")
        if isinstance(raw, bool) or not isinstance(raw, int | float) or not 0.0 <= float(raw) <= 1.0:
            raise ForecastError(f"probability of {name!r} must be a number in [0, 1], got {raw!r}")
        seen.add(fold(name))
        cleaned.append((name, float(raw)))
    total = sum(p for _, p in cleaned)
    if total > 1.0 + _SUM_TOLERANCE:
        raise ForecastError(f"probabilities sum to {total:.6f} > 1")
    return Forecast(tuple(sorted(cleaned, key=lambda pair: (-pair[1], pair[0]))))


def brier_skill(forecast: Forecast | None, matches: Mapping[str, bool]) -> float:
    """The paper's BSS of ``forecast`` given the judge's verdict per outcome (no forecast: 0)."""
    if forecast is None:
        return 0.0
    gold = next((name for name, _ in forecast.outcomes if matches.get(name)), None)
    squared = sum((p - (1.0 if name == gold else 0.0)) ** 2 for name, p in forecast.outcomes)
    if gold is None:
        squared += 1.0  # y itself, given probability 0
    return 1.0 - squared


def top_correct(forecast: Forecast | None, matches: Mapping[str, bool]) -> bool:
    return forecast is not None and forecast.top is not None and bool(matches.get(forecast.top))
