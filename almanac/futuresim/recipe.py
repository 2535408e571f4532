"""The FutureSim recipe: the date-gated corpus export, its index, retrieval contexts, and the question
filters (date repair loop, answerability), in order.

Read by tests/test_recipes.py (dvc.yaml's data deps chain these steps; README lists them in this order).
The retrieval step and the date repair loop read the released OpenForesight splits (never rewriting them),
and the OpenForesight check reads the retrieval back.
"""

from __future__ import annotations

from typing import Final

from almanac.core.recipe import Recipe, Step

STEPS: Final = (
    Step(
        stage="futuresim_corpus",
        label="Corpus export",
        does="a month of the corpus as articles/YYYY/MM/DD/articles.jsonl and chunks of chunk_tokens tokens",
        rejects="almanac.futuresim.corpus",
        unit="articles",
        after=(),  # reads the deduplicated corpus only
    ),
    Step(
        stage="futuresim_index",
        label="Search index",
        does="one BM25 index (tantivy) over every month's chunks, keyed by each chunk's available day",
        rejects="almanac.futuresim.index",
        unit="chunks",
        per_month=False,
        funnel=False,
    ),
    Step(
        stage="futuresim_retrieval",
        label="Retrieval context",
        does="each released OpenForesight question's top-k chunks available by its cut-off",
        rejects="almanac.futuresim.retrieval",
        unit="questions",
        per_month=False,
        funnel=False,
    ),
    Step(
        stage="futuresim_repair",
        label="Date repair",
        does="answer + earliest inferable day with search capped at the date; judged-correct answers move it",
        rejects="almanac.futuresim.repair",
        unit="questions",
        per_month=False,
        after=("futuresim_index",),  # and the OpenForesight splits (uses)
    ),
    Step(
        stage="futuresim_answerability",
        label="Answerability",
        does="drop questions answered confidently months early (stale) or failed after resolution (noise)",
        rejects="almanac.futuresim.answerability",
        unit="questions",
        per_month=False,
        after=("futuresim_index", "futuresim_repair"),
    ),
    Step(
        stage="check_futuresim",
        label="Invariant check",
        does="the invariant checker over the question set and every search behind it",
        rejects="almanac.check.futuresim",
        unit="questions",
        per_month=False,
        after=("futuresim_answerability",),
        funnel=False,
    ),
)

RECIPE: Final = Recipe("futuresim", STEPS, reports=("futuresim_funnel",), uses=("foresight_split",))
