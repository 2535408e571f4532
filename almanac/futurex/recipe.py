"""The FutureX recipe: its stages in order, the one place that order is written.

It builds from other styles' released material (``uses``): the OpenForesight splits and the
answer-type filter's numeric rejects (with that stage's input, the leakage output), the generated
candidates no split released (Level-1 distractors), the cleaned GDELT quads MIRAI's queries come from, and
the OpenForecast splits (so that no candidate repeats a train/validation sample).
"""

from __future__ import annotations

from typing import Final

from almanac.core.recipe import Recipe, Step

STEPS: Final = (
    Step(
        stage="futurex_events",
        label="Candidate events",
        does="events from released OpenForesight questions, GDELT day-pairs and numeric answer-type rejects",
        rejects="almanac.futurex.events",
        unit="events",
        per_month=False,
        after=(),
    ),
    Step(
        stage="futurex_filter",
        label="Event filters",
        does="harmful and subjective events dropped by a judges' vote; yes/no down-sampled; source-day cap",
        rejects="almanac.futurex.filters",
        unit="events",
        per_month=False,
    ),
    Step(
        stage="futurex_tiers",
        label="Four tiers",
        does="Level 1 single choice, Level 2 multi choice, Level 3 open (names), Level 4 open numeric",
        rejects="almanac.futurex.tiers",
        unit="events",
        per_month=False,
        after=("futurex_events", "futurex_filter"),
    ),
    Step(
        stage="check_futurex",
        label="Invariant check",
        does="the invariant checker over every tier question; fails the build on any violation",
        rejects="almanac.check.futurex",
        unit="questions",
        per_month=False,
        after=("futurex_tiers",),
        funnel=False,
    ),
    # Here because FutureX is the style built from every other: the one stage that reads them all.
    Step(
        stage="check_cross_style",
        label="Cross-style check",
        does="no evaluation row of one style repeats a training row of another; fails the build on any",
        rejects="almanac.check.cross_style",
        unit="rows",
        per_month=False,
        after=("futurex_tiers",),
        funnel=False,
    ),
)

RECIPE: Final = Recipe(
    "futurex",
    STEPS,
    reports=("futurex_stats",),
    uses=(
        "foresight_split",
        "foresight_leakage",
        "foresight_answer_type",
        "foresight_qgen",  # generated, unreleased candidates: the Level-1 distractor pool
        "gdelt_clean",
        "event_split",  # OpenForecast train/validation: no candidate may repeat them
        "relation_split",  # MIRAI queries and FutureSim questions: read by the cross-style check only
        "futuresim_answerability",
    ),
)
