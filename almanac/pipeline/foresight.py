"""The OpenForesight stages: the six question steps of a month in one stage per month, dedup and split across
months, the funnel."""

from __future__ import annotations

from typing import Final

from almanac.core import layout as p
from almanac.pipeline.declare import ITEM, Stage

ARTICLES: Final = p.articles_path(ITEM).as_posix()
MONTH_STAGE: Final = "foresight_month"  # the DVC stage that runs the six steps of a month, in order


def _step(step: str, reads: tuple[str, ...], params: tuple[str, ...], tasks: tuple[str, ...] = ()) -> Stage:
    """A per-month step: writes foresight/<step>/<month>.parquet, its rejects and its metrics. Not a DVC stage
    of its own: ``foresight_month`` runs the six in one process (one start-up and one DVC bookkeeping per
    month, not six), each step still with its own outputs, ledger, summary line and timings."""
    stage = f"foresight_{step}"
    return Stage(
        name=stage,
        module=f"stages.{MONTH_STAGE}",
        function=f"almanac.foresight.{step}_stage:run_step",
        foreach="months",
        reads=reads,
        params=params,
        tasks=tasks,
        writes=(p.foresight_path(step, ITEM), p.foresight_rejects(step, ITEM), p.metrics_path(stage, ITEM)),
        runs_in=MONTH_STAGE,
    )


def _questions(step: str) -> str:
    return p.foresight_path(step, ITEM).as_posix()


def _union(parts: tuple[tuple[str, ...], ...]) -> tuple[str, ...]:
    """Every item of ``parts`` once, in first-seen order."""
    return tuple(dict.fromkeys(item for part in parts for item in part))


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
PER_MONTH_STEPS: Final = (QGEN, VALIDATE, SELECT, LEAKAGE, ANSWER_TYPE, DATES)
STEP_OUTPUTS: Final = frozenset(path.as_posix() for step in PER_MONTH_STEPS for path in step.writes)
MONTH: Final = Stage(
    name=MONTH_STAGE,
    module=f"stages.{MONTH_STAGE}",
    function="almanac.foresight.month_stage:run",
    foreach="months",
    # what the steps read from outside the stage (a step's questions are the previous step's output)
    reads=tuple(read for read in _union(tuple(s.reads for s in PER_MONTH_STEPS)) if read not in STEP_OUTPUTS),
    params=_union(tuple(step.params for step in PER_MONTH_STEPS)),
    tasks=_union(tuple(step.tasks for step in PER_MONTH_STEPS)),
    writes=tuple(path for step in PER_MONTH_STEPS for path in step.writes),
    note="OpenForesight: the six question steps of a month (qgen, validate, select, leakage, answer_type, "
    "dates) run in order in one process; each writes its own questions, rejects and metrics as before.",
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
# What the funnel and the report count: every step's metrics (folders of the per-month ones).
STEP_METRICS: Final = (
    *(p.metrics_dir(step.name).as_posix() for step in PER_MONTH_STEPS),
    p.metrics_path(QUESTION_DEDUP.name).as_posix(),
    p.metrics_path(SPLIT.name).as_posix(),
)
FUNNEL: Final = Stage(
    name="foresight_funnel",
    module="stages.openforesight_stats_report",
    function="almanac.reports.foresight_funnel_stage:run",
    reads=(p.foresight_splits_dir().as_posix(), *STEP_METRICS),
    params=("months",),
    writes=(p.stats_report("foresight_funnel"), p.stats_report("foresight_funnel", ".json")),
    runs_in="openforesight_stats_report",  # a step of the report stage (almanac.pipeline.finals)
)
STAGES: Final = (MONTH, QUESTION_DEDUP, SPLIT)
