"""DVC stage ``futuresim_funnel``: the FutureSim question funnel (count, share and reasons per filter)."""

from __future__ import annotations

import time

from almanac.core.io import write_text
from almanac.core.layout import METRICS, futuresim_questions_dir, stats_report
from almanac.core.metrics import write_metrics
from almanac.core.stage import end_stage, parse_stage_args
from almanac.foresight.split import SPLITS
from almanac.reports.futuresim_funnel import futuresim_funnel

STAGE = "futuresim_funnel"


def run() -> int:
    started = time.perf_counter()
    parse_stage_args(__doc__ or STAGE, per_month=False)
    files = [futuresim_questions_dir() / f"{split}.parquet" for split in SPLITS]
    markdown, metrics = futuresim_funnel(METRICS, [path for path in files if path.is_file()])
    write_text(markdown, stats_report(STAGE))
    write_metrics(metrics, stats_report(STAGE, ".json"))
    end_stage(STAGE, f"{metrics['released']} released questions, {metrics['final']} in the set", started)
    return 0
