"""The FutureSim recipe: the date-gated corpus export, its index, retrieval contexts, and the question
filters (date repair loop, answerability), in order.

Read by tests/test_recipes.py (dvc.yaml's data deps chain these steps; README lists them in this order).
The retrieval step and the date repair loop read the released OpenForesight splits (never rewriting them),
and the OpenForesight check reads the retrieval back.
"""

from __future__ import annotations

from typing import Final

from almanac.pipeline import finals, foresight, futuresim
from almanac.pipeline.recipe import Recipe, Step

STEPS: Final = (
    Step(
        declared=futuresim.CORPUS,
        label="Corpus export",
        does="a month of the corpus as articles/YYYY/MM/DD/articles.jsonl and chunks of chunk_tokens tokens",
        rejects="almanac.futuresim.corpus",
        unit="articles",
        after=(),  # reads the deduplicated corpus only
    ),
    Step(
        declared=futuresim.INDEX,
        label="Search index",
        does="one BM25 index (tantivy) over every month's chunks, keyed by each chunk's available day",
        rejects="almanac.futuresim.index",
        unit="chunks",
        funnel=False,
    ),
    Step(
        declared=futuresim.RETRIEVAL,
        label="Retrieval context",
        does="each released OpenForesight question's top-k chunks available by its cut-off",
        rejects="almanac.futuresim.retrieval",
        unit="questions",
        funnel=False,
    ),
    Step(
        declared=futuresim.REPAIR,
        label="Date repair",
        does="answer + earliest inferable day with search capped at the date; judged-correct answers move it",
        rejects="almanac.futuresim.repair",
        unit="questions",
        after=(futuresim.INDEX,),  # and the OpenForesight splits (uses)
    ),
    Step(
        declared=futuresim.ANSWERABILITY,
        label="Answerability",
        does="drop questions answered confidently months early (stale) or failed after resolution (noise)",
        rejects="almanac.futuresim.answerability",
        unit="questions",
        after=(futuresim.INDEX, futuresim.REPAIR),
    ),
    Step(
        declared=finals.CHECK_FUTURESIM,
        label="Invariant check",
        does="the invariant checker over the question set and every search behind it",
        rejects="almanac.check.futuresim",
        unit="questions",
        after=(futuresim.ANSWERABILITY,),
        funnel=False,
    ),
)

RECIPE: Final = Recipe("futuresim", STEPS, report_stages=(futuresim.FUNNEL,), used=(foresight.SPLIT,))
