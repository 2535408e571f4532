"""Every stage of the DAG, in ``dvc.yaml`` order: the table ``almanac dag`` renders and the tests read.

Each part's module lists its stages (``STAGES``); a new stage is one declaration added to its part's list.
"""

from __future__ import annotations

from typing import Final

from almanac.pipeline import corpus, events, finals, foresight, futuresim, futurex, mirai, series
from almanac.pipeline.declare import Stage

PARTS: Final = (corpus, foresight, futuresim, events, mirai, futurex, finals, series)
STAGES: Final[tuple[Stage, ...]] = tuple(stage for part in PARTS for stage in part.STAGES)
BY_NAME: Final[dict[str, Stage]] = {stage.name: stage for stage in STAGES}
if len(BY_NAME) != len(STAGES):
    raise ValueError("two stage declarations share a name")


def stage(name: str) -> Stage:
    """The declaration of stage ``name``; KeyError names the known stages."""
    if name not in BY_NAME:
        raise KeyError(f"no stage {name!r} is declared (known: {sorted(BY_NAME)})")
    return BY_NAME[name]
