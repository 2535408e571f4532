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

PARTS: Final = (corpus, foresight, futuresim, events, mirai, futurex, finals, series)
DECLARED: Final[tuple[Stage, ...]] = tuple(stage for part in PARTS for stage in part.STAGES)
STAGES: Final[tuple[Stage, ...]] = (code_stage(DECLARED), *DECLARED)
BY_NAME: Final[dict[str, Stage]] = {stage.name: stage for stage in STAGES}
if len(BY_NAME) != len(STAGES):
    raise ValueError("two stage declarations share a name")


def stage(name: str) -> Stage:
    """The declaration of stage ``name``; KeyError names the known stages."""
    if name not in BY_NAME:
        raise KeyError(f"no stage {name!r} is declared (known: {sorted(BY_NAME)})")
    return BY_NAME[name]
