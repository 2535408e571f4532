"""The OpenForesight stages: six per-month question steps, dedup and split across months, the funnel."""

from __future__ import annotations

from typing import Final

from almanac.core import layout as p
from almanac.pipeline.declare import ITEM, Stage

ARTICLES: Final = p.articles_path(ITEM).as_posix()


def _step(step: str, reads: tuple[str, ...], params: tuple[str, ...], tasks: tuple[str, ...] = ()) -> Stage:
    """A per-month step: writes foresight/<step>/<month>.parquet, its rejects and its metrics."""
    stage = f"foresight_{step}"
    return Stage(
        name=stage,
        module=f"stages.{stage}",
        function=f"almanac.foresight.{step}_stage:run",
        foreach="months",
        reads=reads,
        params=params,
        tasks=tasks,
        writes=(p.foresight_path(step, ITEM), p.foresight_rejects(step, ITEM), p.metrics_path(stage, ITEM)),
    )


def _questions(step: str) -> str:
    return p.foresight_path(step, ITEM).as_posix()


QGEN: Final = _step("qgen", (ARTICLES,), ("foresight.qgen", "llm.roles.generator"), ("qgen",))
VALIDATE: Final = _step(
    "validate", (ARTICLES, _questions("qgen")), ("foresight.judge", "llm.roles.validator"), ("validate",)
)
SELECT: Final = _step(
    "select",
    (ARTICLES, _questions("validate")),
    ("foresight.judge", "llm.roles.validator"),
    ("select_best",),
)
LEAKAGE: Final = _step(
    "leakage", (_questions("select"),), ("foresight.leakage", "llm.roles.editor"), ("leakage",)
)
ANSWER_TYPE: Final = _step(
    "answer_type", (ARTICLES, _questions("leakage")), ("foresight.answer_type", "foresight.question_filters")
)
# date_repair is sent only with foresight.dates.date_repair on; declared so its prompt edit reruns the stage.
DATES: Final = _step(
    "dates", (ARTICLES, _questions("answer_type")), ("foresight.dates", "llm.roles.editor"), ("date_repair",)
)
QUESTION_DEDUP: Final = Stage(
    name="foresight_question_dedup",
    module="stages.foresight_question_dedup",
    function="almanac.foresight.question_dedup_stage:run",
    reads=(p.foresight_path("dates", ITEM).parent.as_posix(),),  # every month's dated questions
    params=("months", "foresight.question_dedup"),
    writes=(p.question_dedup_dir(), p.question_dedup_rejects(), p.metrics_path("foresight_question_dedup")),
)
SPLIT: Final = Stage(
    name="foresight_split",
    module="stages.foresight_split",
    function="almanac.foresight.split_stage:run",
    reads=(p.question_dedup_dir().as_posix(),),
    params=("months", "foresight.split"),
    writes=(p.foresight_splits_dir(), p.foresight_split_rejects(), p.metrics_path("foresight_split")),
)
PER_MONTH_STEPS: Final = (QGEN, VALIDATE, SELECT, LEAKAGE, ANSWER_TYPE, DATES)
# What the funnel and the report count: every step's metrics (folders of the per-month ones).
STEP_METRICS: Final = (
    *(p.metrics_dir(step.name).as_posix() for step in PER_MONTH_STEPS),
    p.metrics_path(QUESTION_DEDUP.name).as_posix(),
    p.metrics_path(SPLIT.name).as_posix(),
)
FUNNEL: Final = Stage(
    name="foresight_funnel",
    module="stages.foresight_funnel",
    function="almanac.reports.foresight_funnel_stage:run",
    reads=(p.foresight_splits_dir().as_posix(), *STEP_METRICS),
    params=("months",),
    writes=(p.stats_report("foresight_funnel"), p.stats_report("foresight_funnel", ".json")),
)
STAGES: Final = (*PER_MONTH_STEPS, QUESTION_DEDUP, SPLIT, FUNNEL)
