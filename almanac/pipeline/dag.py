"""Every stage of the DAG, in ``dvc.yaml`` order: the table ``almanac dag`` renders and the tests read.

Each part's module lists its stages (``STAGES``); a new stage is one declaration added to its part's list.
The first stage, ``code_hashes``, follows from the others (``code_stage.code_stage``): one fingerprint of code
files per stage, the code dep of that stage.
"""

from __future__ import annotations

from typing import Final

from almanac.pipeline import corpus, events, finals, foresight, futuresim, futurex, mirai, series
from almanac.pipeline.code_stage import code_stage
from almanac.pipeline.declare import Stage

PARTS: Final = (corpus, foresight, futuresim, events, mirai, futurex, series, finals)
DECLARED: Final[tuple[Stage, ...]] = tuple(stage for part in PARTS for stage in part.STAGES)
STAGES: Final[tuple[Stage, ...]] = (code_stage(DECLARED), *DECLARED)
BY_NAME: Final[dict[str, Stage]] = {stage.name: stage for stage in STAGES}
if len(BY_NAME) != len(STAGES):
    raise ValueError("two stage declarations share a name")
# The steps run inside another stage (``Stage.runs_in``): each OpenForesight month's six, each GDELT
# month's download and ingest, the seven checks, each style's statistics and report.
STEPS: Final[tuple[Stage, ...]] = (
    *foresight.PER_MONTH_STEPS,
    *mirai.MONTH_STEPS,
    *finals.CHECK_STEPS,
    *finals.STATS_REPORT_STEPS,
)
STEPS_BY_NAME: Final[dict[str, Stage]] = {step.name: step for step in STEPS}
for _step in STEPS:
    _host = BY_NAME.get(_step.runs_in)
    if _host is None or not set(_step.writes) <= set(_host.writes) or _step.name in BY_NAME:
        raise ValueError(
            f"step {_step.name}: runs in {_step.runs_in!r}, which must be a stage writing its paths"
        )


def dvc_stage(declared: Stage) -> Stage:
    """The dvc.yaml stage that runs ``declared``: itself, or for a step the stage it runs in."""
    return BY_NAME[declared.runs_in] if declared.runs_in else declared


def stage(name: str) -> Stage:
    """The declaration of stage ``name``; KeyError names the known stages."""
    if name not in BY_NAME:
        raise KeyError(f"no stage {name!r} is declared (known: {sorted(BY_NAME)})")
    return BY_NAME[name]
