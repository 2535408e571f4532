"""The OpenForesight recipe: its stages in order, the one place that order is written.

Read by the Table-1 funnel (almanac.reports.foresight_funnel), the report's funnel
(almanac.reports.openforesight) and tests/test_recipes.py (dvc.yaml's data deps chain these steps; README
lists them in this order).
"""

from __future__ import annotations

from typing import Final

from almanac.pipeline import finals, foresight, futuresim
from almanac.pipeline.recipe import Recipe, Step

STEPS: Final = (
    Step(
        declared=foresight.QGEN,
        label="Question generation",
        does="up to questions_per_article candidate questions per article (generator role)",
        rejects="almanac.foresight.generate",
        unit="articles",  # it reads articles and hands on those that gave at least one question
        produces="candidates",
    ),
    Step(
        declared=foresight.VALIDATE,
        label="Validation",
        does="the validator role accepts or rejects each candidate",
        rejects="almanac.foresight.validate",
        unit="questions",
    ),
    Step(
        declared=foresight.SELECT,
        label="Best question selection",
        does="one question per article: a lone valid one is kept, several go to the validator to choose",
        rejects="almanac.foresight.select",
        unit="questions",
    ),
    Step(
        declared=foresight.LEAKAGE,
        label="Fixing leakage",
        does="the editor role rewrites revealing spans; a string re-scan drops what still leaks",
        rejects="almanac.foresight.leakage",
        unit="questions",
    ),
    Step(
        declared=foresight.ANSWER_TYPE,
        label="Answer type filtering",
        does="normalise answer types, classify answers, keep the allowed classes",
        rejects="almanac.foresight.answer_filter",
        unit="questions",
    ),
    Step(
        declared=foresight.DATES,
        label="Date checks",
        does="real start / resolution dates, clamped to the article date; unknown dates rejected",
        rejects="almanac.foresight.dates",
        unit="questions",
    ),
    Step(
        declared=foresight.QUESTION_DEDUP,
        label="Question dedup",
        does="near-duplicate questions collapsed across months, earliest kept",
        rejects="almanac.foresight.question_dedup",
        unit="questions",
    ),
    Step(
        declared=foresight.SPLIT,
        label="Final set",
        does="train / validation / test by resolution month; cross-question leakage dropped or flagged",
        rejects="almanac.foresight.split",
        unit="questions",
    ),
    Step(
        declared=finals.CHECK_OPENFORESIGHT,
        label="Invariant check",
        does="the invariant checker over every released question; fails the build on any violation",
        rejects="almanac.check.openforesight",
        unit="questions",
        funnel=False,
    ),
)

RECIPE: Final = Recipe(
    "openforesight",
    STEPS,
    report_stages=(foresight.FUNNEL, finals.OPENFORESIGHT_REPORT),
    # The check verifies the FutureSim retrieval contexts of the released questions against the chunks.
    used=(futuresim.CORPUS, futuresim.RETRIEVAL),
)
