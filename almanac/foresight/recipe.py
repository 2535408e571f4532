"""The OpenForesight recipe: its stages in order, the one place that order is written.

Read by the Table-1 funnel (almanac.reports.foresight_funnel), the report's funnel
(almanac.reports.openforesight) and tests/test_recipes.py (dvc.yaml's data deps chain these steps; README
lists them in this order).
"""

from __future__ import annotations

from typing import Final

from almanac.core.recipe import Recipe, Step

STEPS: Final = (
    Step(
        stage="foresight_qgen",
        label="Question generation",
        does="up to questions_per_article candidate questions per article (generator role)",
        rejects="almanac.foresight.generate",
        unit="articles",  # it reads articles and hands on those that gave at least one question
        produces="candidates",
    ),
    Step(
        stage="foresight_validate",
        label="Validation",
        does="the validator role accepts or rejects each candidate",
        rejects="almanac.foresight.validate",
        unit="questions",
    ),
    Step(
        stage="foresight_select",
        label="Best question selection",
        does="one question per article: a lone valid one is kept, several go to the validator to choose",
        rejects="almanac.foresight.select",
        unit="questions",
    ),
    Step(
        stage="foresight_leakage",
        label="Fixing leakage",
        does="the editor role rewrites revealing spans; a string re-scan drops what still leaks",
        rejects="almanac.foresight.leakage",
        unit="questions",
    ),
    Step(
        stage="foresight_answer_type",
        label="Answer type filtering",
        does="normalise answer types, classify answers, keep the allowed classes",
        rejects="almanac.foresight.answer_filter",
        unit="questions",
    ),
    Step(
        stage="foresight_dates",
        label="Date checks",
        does="real start / resolution dates, clamped to the article date; unknown dates rejected",
        rejects="almanac.foresight.dates",
        unit="questions",
    ),
    Step(
        stage="foresight_question_dedup",
        label="Question dedup",
        does="near-duplicate questions collapsed across months, earliest kept",
        rejects="almanac.foresight.question_dedup",
        unit="questions",
        per_month=False,
    ),
    Step(
        stage="foresight_split",
        label="Final set",
        does="train / validation / test by resolution month; cross-question leakage dropped or flagged",
        rejects="almanac.foresight.split",
        unit="questions",
        per_month=False,
    ),
    Step(
        stage="check_openforesight",
        label="Invariant check",
        does="the invariant checker over every released question; fails the build on any violation",
        rejects="almanac.check.openforesight",
        unit="questions",
        per_month=False,
        funnel=False,
    ),
)

RECIPE: Final = Recipe(
    "openforesight",
    STEPS,
    reports=("foresight_funnel", "openforesight_report"),
    # The check verifies the FutureSim retrieval contexts of the released questions against the chunks.
    uses=("futuresim_corpus", "futuresim_retrieval"),
)
