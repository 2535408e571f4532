"""The FutureSim question filters: their stages in order, the one place that order is written.

The recipe starts from another style's release: the OpenForesight splits (``foresight_split``), read
and never rewritten. tests/test_recipes.py checks dvc.yaml's data deps against this table.
"""

from __future__ import annotations

from typing import Final

from almanac.core.recipe import Recipe, Step

STEPS: Final = (
    Step(
        stage="futuresim_repair",
        label="Date repair",
        does="answer + earliest inferable day with search capped at the date; judged-correct answers move it",
        rejects="almanac.futuresim.repair",
        unit="questions",
        per_month=False,
    ),
    Step(
        stage="futuresim_answerability",
        label="Answerability",
        does="drop questions answered confidently months early (stale) or failed after resolution (noise)",
        rejects="almanac.futuresim.answerability",
        unit="questions",
        per_month=False,
    ),
    Step(
        stage="check_futuresim",
        label="Invariant check",
        does="the invariant checker over the question set and every search behind it",
        rejects="almanac.check.futuresim",
        unit="questions",
        per_month=False,
        funnel=False,
    ),
)

RECIPE: Final = Recipe("futuresim", STEPS, reports=("futuresim_funnel",), uses=("foresight_split",))
