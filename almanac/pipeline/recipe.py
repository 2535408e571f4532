"""A recipe: one style's stage declarations in order, with the words the funnels and docs show for each.

Each style writes its table next to its code (``almanac/foresight/recipe.py``, ``almanac/events/recipe.py``,
``almanac/mirai/recipe.py`` ...), as :class:`Step` records that hold the stage's declaration
(``almanac.pipeline``), never its name as a string. The funnels take their stages and labels from it,
``almanac status`` the stages of each style, and tests/test_recipes.py checks that dvc.yaml's data deps chain
the steps as the table says, that every stage of the style is in the table, and that the docs list the steps
in the same order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from almanac.pipeline.corpus import STAGES as CORPUS_STAGES
from almanac.pipeline.declare import Stage

# The CC-News corpus stages: shared by the recipes (a step may read the corpus), owned by none of them.
CORPUS: Final = tuple(stage.name for stage in CORPUS_STAGES)


@dataclass(frozen=True, kw_only=True)
class Step:
    """One stage of a recipe."""

    declared: Stage  # the stage's declaration
    label: str  # short name in the funnel table and figure
    does: str  # one line: what the stage does
    rejects: str  # the module that owns the stage's reject reasons
    unit: str  # what the stage's items_in / items_out count
    # The recipe steps whose outputs it reads; None: the previous step only (the plain chain).
    after: tuple[Stage, ...] | None = None
    # For a step that creates new items from its inputs (qgen: questions from articles): the metrics key
    # counting what it created.
    produces: str | None = None
    funnel: bool = True  # counted in the funnel (the invariant checker writes no stage metrics)

    @property
    def stage(self) -> str:
        """The step's name: its dvc.yaml stage, or for a step run inside another stage (``Stage.runs_in``:
        the OpenForesight steps, the checks) the name of its outputs, metrics and timings."""
        return self.declared.name

    @property
    def dvc_stage(self) -> str:
        """The dvc.yaml stage that runs the step."""
        return self.declared.runs_in or self.declared.name

    @property
    def per_month(self) -> bool:
        """A foreach stage over the months in scope (as its declaration says)."""
        return self.declared.per_month


@dataclass(frozen=True)
class Recipe:
    style: str
    steps: tuple[Step, ...]
    # Stages that read the steps' outputs but hand nothing on (statistics, funnel, reports).
    report_stages: tuple[Stage, ...] = ()
    # Stages of other recipes whose outputs these steps read besides the corpus (FutureSim's retrieval reads
    # the OpenForesight splits; the OpenForesight check reads the retrieval it must verify; FutureX
    # builds from the OpenForesight release and the clean GDELT quads).
    used: tuple[Stage, ...] = ()

    def __post_init__(self) -> None:
        seen: set[str] = set()
        for step in self.steps:
            if step.stage in seen:
                raise ValueError(f"recipe {self.style}: {step.stage} is listed twice")
            late = [stage.name for stage in step.after or () if stage.name not in seen]
            if late:
                raise ValueError(f"recipe {self.style}: {step.stage} reads {late}, not an earlier step")
            seen.add(step.stage)
        if seen & set(self.uses):
            raise ValueError(f"recipe {self.style}: uses its own steps {sorted(seen & set(self.uses))}")

    @property
    def stages(self) -> tuple[str, ...]:
        return tuple(step.stage for step in self.steps)

    @property
    def reports(self) -> tuple[str, ...]:
        return tuple(stage.name for stage in self.report_stages)

    @property
    def uses(self) -> tuple[str, ...]:
        return tuple(stage.name for stage in self.used)

    @property
    def dvc_stages(self) -> tuple[str, ...]:
        """The dvc.yaml stages that run the steps, in order, each once (several steps may run in one)."""
        return tuple(dict.fromkeys(step.dvc_stage for step in self.steps))

    def declarations(self) -> tuple[Stage, ...]:
        """The style's own steps in order, then its reports (a step run inside another stage: its own
        declaration; ``almanac.pipeline.dag.dvc_stage`` gives the stage that runs it)."""
        return (*(step.declared for step in self.steps), *self.report_stages)

    def after(self, stage: str) -> tuple[str, ...]:
        """The steps whose outputs ``stage`` reads (the previous step unless the table says otherwise)."""
        index = self.stages.index(stage)
        step = self.steps[index]
        if step.after is not None:
            return tuple(declared.name for declared in step.after)
        return (self.steps[index - 1].stage,) if index else ()

    def funnel(self) -> tuple[Step, ...]:
        """The steps the funnel counts, in order."""
        return tuple(step for step in self.steps if step.funnel)
