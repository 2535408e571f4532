"""DVC stage ``series_questions``: observations -> question splits by resolution month, each question with
its news context (top-k FutureSim chunks available by its forecast date), data/series/splits/"""

from __future__ import annotations

from almanac.core.stage import parse_stage_args
from almanac.series.release import STAGE
from almanac.series.release_run import run as build_questions


def run() -> int:
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    build_questions(params)
    return 0
