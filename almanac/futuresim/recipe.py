"""The FutureSim recipe: the date-gated corpus export, its index, and retrieval contexts, in order.

Read by tests/test_recipes.py (dvc.yaml's data deps chain these steps; README lists them in this order).
The retrieval step reads the released OpenForesight splits, and the OpenForesight check reads it back.
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
)

RECIPE: Final = Recipe("futuresim", STEPS, uses=("foresight_split",))
