"""The FutureX recipe: its stages in order, the one place that order is written.

It builds from other styles' released material (``uses``): the OpenForesight splits and the
answer-type filter's numeric rejects (with that stage's input, the leakage output), the generated
candidates no split released (Level-1 distractors), the cleaned GDELT quads MIRAI's queries come from, and
the OpenForecast splits (so that no candidate repeats a train/validation sample).
"""

from __future__ import annotations

from typing import Final

from almanac.pipeline import events, finals, foresight, futuresim, futurex, mirai, series
from almanac.pipeline.recipe import Recipe, Step

STEPS: Final = (
    Step(
        declared=futurex.EVENTS,
        label="Candidate events",
        does="events from released OpenForesight questions, GDELT day-pairs and numeric answer-type rejects",
        rejects="almanac.futurex.events",
        unit="events",
        after=(),
    ),
    Step(
        declared=futurex.FILTER,
        label="Event filters",
        does="harmful and subjective events dropped by a judges' vote; yes/no down-sampled; source-day cap",
        rejects="almanac.futurex.filters",
        unit="events",
    ),
    Step(
        declared=futurex.TIERS,
        label="Four tiers",
        does="Level 1 single choice, Level 2 multi choice, Level 3 open (names), Level 4 open numeric",
        rejects="almanac.futurex.tiers",
        unit="events",
        after=(futurex.EVENTS, futurex.FILTER),
    ),
    Step(
        declared=finals.CHECK_FUTUREX,
        label="Invariant check",
        does="the invariant checker over every tier question; fails the build on any violation",
        rejects="almanac.check.futurex",
        unit="questions",
        after=(futurex.TIERS,),
        funnel=False,
    ),
    # Here because FutureX is the style built from every other: the one stage that reads them all.
    Step(
        declared=finals.CHECK_CROSS_STYLE,
        label="Cross-style check",
        does="no evaluation row of one style repeats a training row of another; fails the build on any",
        rejects="almanac.check.cross_style",
        unit="rows",
        after=(futurex.TIERS,),
        funnel=False,
    ),
)

RECIPE: Final = Recipe(
    "futurex",
    STEPS,
    report_stages=(futurex.STATS,),
    used=(
        foresight.SPLIT,
        foresight.LEAKAGE,
        foresight.ANSWER_TYPE,
        foresight.QGEN,  # generated, unreleased candidates: the Level-1 distractor pool
        foresight.VALIDATE,  # the validator's numeric drops: Level-4 candidates
        mirai.GDELT_CLEAN,
        events.EVENT_SPLIT,  # OpenForecast train/validation: no candidate may repeat them
        mirai.RELATION_SPLIT,  # MIRAI queries and FutureSim questions: read by the cross-style check only
        futuresim.ANSWERABILITY,
        series.QUESTIONS,  # numeric series questions (test split): Level-4 candidates with their sigma
    ),
)
