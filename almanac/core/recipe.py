"""A recipe: one style's stages in order, as one table read by the funnels, the dvc.yaml test and the docs.

Each style writes its table next to its code (``almanac/foresight/recipe.py``, ``almanac/events/recipe.py``,
``almanac/mirai/recipe.py``). The order of a style's steps lives only there: the funnels take their stages
and labels from it, tests/test_recipes.py checks that dvc.yaml's data deps chain the steps as the table
says, that every stage of the style is in the table, and that README lists the steps in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

# The CC-News corpus stages: shared by the recipes (a step may read the corpus), owned by none of them.
CORPUS: Final = ("ccnews_ingest", "dedup_signatures", "dedup", "corpus_stats")


@dataclass(frozen=True, kw_only=True)
class Step:
    """One stage of a recipe."""

    stage: str  # the dvc.yaml stage
    label: str  # short name in the funnel table and figure
    does: str  # one line: what the stage does
    rejects: str  # the module that owns the stage's reject reasons
    unit: str  # what the stage's items_in / items_out count
    per_month: bool = True  # a foreach stage over the months in scope
    # The recipe steps whose outputs it reads; None: the previous step only (the plain chain).
    after: tuple[str, ...] | None = None
    # For a step that creates new items from its inputs (qgen: questions from articles): the metrics key
    # counting what it created.
    produces: str | None = None
    funnel: bool = True  # counted in the funnel (the invariant checker writes no stage metrics)


@dataclass(frozen=True)
class Recipe:
    style: str
    steps: tuple[Step, ...]
    # Stages that read the steps' outputs but hand nothing on (statistics, funnel, reports).
    reports: tuple[str, ...] = ()
    # Stages of other recipes whose outputs these steps read besides the corpus (FutureSim's retrieval reads
    # the OpenForesight splits; the OpenForesight check reads the retrieval it must verify; FutureX
    # builds from the OpenForesight release and the clean GDELT quads).
    uses: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for step in self.steps:
            if step.stage in seen:
                raise ValueError(f"recipe {self.style}: {step.stage} is listed twice")
            late = [name for name in step.after or () if name not in seen]
            if late:
                raise ValueError(f"recipe {self.style}: {step.stage} reads {late}, not an earlier step")
            seen.add(step.stage)
        if seen & set(self.uses):
            raise ValueError(f"recipe {self.style}: uses its own steps {sorted(seen & set(self.uses))}")

    @property
    def stages(self) -> tuple[str, ...]:
        return tuple(step.stage for step in self.steps)

    def after(self, stage: str) -> tuple[str, ...]:
        """The steps whose outputs ``stage`` reads (the previous step unless the table says otherwise)."""
        index = self.stages.index(stage)
        step = self.steps[index]
        if step.after is not None:
            return step.after
        return (self.steps[index - 1].stage,) if index else ()

    def funnel(self) -> tuple[Step, ...]:
        """The steps the funnel counts, in order."""
        return tuple(step for step in self.steps if step.funnel)
