"""Every stage of the DAG, in ``dvc.yaml`` order: the table ``almanac dag`` renders and the tests read."""

from __future__ import annotations

from typing import Final

from almanac.pipeline import corpus, events, finals, foresight, futuresim, futurex, mirai
from almanac.pipeline.declare import Stage

STAGES: Final[tuple[Stage, ...]] = (
    *corpus.STAGES,
    *foresight.STAGES[:-1],  # the question steps, dedup and split
    futuresim.RETRIEVAL,
    foresight.FUNNEL,
    futuresim.CORPUS,
    futuresim.INDEX,
    *events.STAGES,
    *mirai.STAGES,
    futuresim.REPAIR,
    futuresim.ANSWERABILITY,
    futuresim.FUNNEL,
    finals.CHECK_FUTURESIM,
    finals.CHECK_OPENFORESIGHT,
    finals.CHECK_OPENFORECAST,
    finals.CHECK_MIRAI,
    *futurex.STAGES,
    finals.CHECK_FUTUREX,
    finals.CHECK_CROSS_STYLE,
    finals.OPENFORESIGHT_REPORT,
    finals.MIRAI_REPORT,
    finals.OPENFORECAST_REPORT,
)
BY_NAME: Final[dict[str, Stage]] = {stage.name: stage for stage in STAGES}
if len(BY_NAME) != len(STAGES):
    raise ValueError("two stage declarations share a name")


def stage(name: str) -> Stage:
    """The declaration of stage ``name``; KeyError names the known stages."""
    if name not in BY_NAME:
        raise KeyError(f"no stage {name!r} is declared (known: {sorted(BY_NAME)})")
    return BY_NAME[name]
