"""DVC stage ``foresight_funnel``: Table-1 style funnel and Table-4 style answer types -> reports/."""

from __future__ import annotations

import time

from almanac.core.io import write_text
from almanac.core.layout import foresight_splits_dir, stats_report
from almanac.core.metrics import write_metrics
from almanac.core.params import months_in_scope
from almanac.core.stage import end_stage, parse_stage_args
from almanac.reports.foresight_funnel import (
    OPENFORESIGHT_FUNNEL,
    answer_type_rows,
    funnel_markdown,
    funnel_metrics,
    split_rows,
)
from almanac.reports.funnel import chained_funnel

STAGE = "foresight_funnel"


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    months = months_in_scope(params)
    split_files = sorted(foresight_splits_dir().rglob("*.parquet"))
    funnel = chained_funnel(OPENFORESIGHT_FUNNEL, months)
    answer_types = answer_type_rows(split_files)
    splits = split_rows(split_files)
    write_text(funnel_markdown(funnel, answer_types, splits), stats_report(STAGE))
    metrics = write_metrics(funnel_metrics(funnel, answer_types, splits), stats_report(STAGE, ".json"))
    end_stage(STAGE, f"{len(funnel)} funnel steps, {metrics['final']} questions released", started)
    return 0
