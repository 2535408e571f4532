"""DVC stage ``foresight_question_dedup``: near-duplicate questions collapsed across all months."""

from __future__ import annotations

import time

import pyarrow as pa

from almanac.core.io import write_month_partitions
from almanac.core.layout import metrics_path, question_dedup_dir, question_dedup_rejects
from almanac.core.parallel import RayConfig
from almanac.core.params import months_in_scope, parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.foresight.question_dedup import STAGE, QuestionDedupConfig, deduplicate_questions
from almanac.foresight.stage_io import read_questions
from almanac.pipeline.foresight import DATES


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    months = months_in_scope(params)
    config = parse_section(QuestionDedupConfig, params.get("foresight") or {}, "question_dedup")
    ray_config = parse_section(RayConfig, params, "ray")
    questions = pa.concat_tables([read_questions(DATES, month) for month in months])
    kept, ledger = deduplicate_questions(questions, config, ray_config)
    write_month_partitions(kept, question_dedup_dir(), months, "month")
    finish_stage(ledger, started, question_dedup_rejects(), metrics_path(STAGE))
    return 0
