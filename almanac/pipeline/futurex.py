"""The FutureX stages: tiered question sets from the released OpenForesight questions, the MIRAI queries and
the numeric answers the OpenForesight answer-type filter drops (docs: FutureX tiers and scoring)."""

from __future__ import annotations

from typing import Final

from almanac.core import layout as p
from almanac.pipeline.declare import Stage

SPLITS: Final = p.foresight_splits_dir().as_posix()
EVENTS: Final = Stage(
    name="futurex_events",
    module="stages.futurex_events",
    function="almanac.futurex.events_stage:run",
    reads=(
        SPLITS,
        "data/foresight/leakage",
        "data/foresight/answer_type",
        "data/foresight/qgen",  # Level 4 also from the validator's numeric drops, joined to their questions
        "data/foresight/validate",
        p.gdelt_quads().as_posix(),
        p.event_splits_dir().as_posix(),  # OpenForecast train/validation: a candidate may not repeat them
        "data/series/splits",  # Level 4 also from the numeric series questions of the series test split
    ),
    params=("months", "foresight.split", "check.cross_style", "futurex.seed", "futurex.events"),
    writes=(p.futurex_events(), p.futurex_events_rejects(), p.metrics_path("futurex_events")),
)
FILTER: Final = Stage(
    name="futurex_filter",
    module="stages.futurex_filter",
    function="almanac.futurex.filter_stage:run",
    reads=(p.futurex_events().as_posix(),),
    params=("futurex.seed", "futurex.filter", "llm.roles"),
    tasks=("futurex_harmful", "futurex_subjective"),
    writes=(p.futurex_filtered(), p.futurex_filter_rejects(), p.metrics_path("futurex_filter")),
)
TIERS: Final = Stage(
    name="futurex_tiers",
    module="stages.futurex_tiers",
    function="almanac.futurex.tiers_stage:run",
    reads=(
        p.futurex_filtered().as_posix(),
        SPLITS,  # released answers: no Level-1 option may be one
        "data/series/splits",  # the series questions' sigma (Level 4)
        "data/foresight/qgen",  # generated, unreleased candidates: the Level-1 distractor pool
        p.metrics_path(EVENTS.name).as_posix(),
        p.metrics_path(FILTER.name).as_posix(),
    ),
    params=("months", "futurex.seed", "futurex.tiers"),
    writes=(p.futurex_tiers_dir(), p.futurex_tiers_rejects(), p.metrics_path("futurex_tiers")),
)
STATS: Final = Stage(
    name="futurex_stats",
    module="stages.futurex_stats",
    function="almanac.reports.futurex_stats_stage:run",
    reads=(
        p.futurex_tiers_dir().as_posix(),
        *(p.metrics_path(stage.name).as_posix() for stage in (EVENTS, FILTER, TIERS)),
    ),
    writes=(p.stats_report("futurex_stats"), p.stats_report("futurex_stats", ".json")),
)
STAGES: Final = (EVENTS, FILTER, TIERS, STATS)
