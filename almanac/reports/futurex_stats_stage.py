"""DVC stage ``futurex_stats``: the FutureX funnel (each filter's counts) and the questions per tier."""

from __future__ import annotations

import time

from almanac.core.io import read_json, read_parquet, write_text
from almanac.core.layout import futurex_tiers_dir, stats_report
from almanac.core.metrics import write_metrics
from almanac.core.stage import end_stage, parse_stage_args
from almanac.futurex.schema import LEVELS
from almanac.pipeline.futurex import EVENTS, FILTER, TIERS
from almanac.reports.futurex_stats import stats_markdown, tier_stats

STAGE = "futurex_stats"


def run() -> int:
    started = time.perf_counter()
    parse_stage_args(__doc__ or STAGE, per_month=False)
    rows = [
        row
        for level in LEVELS
        for row in read_parquet(futurex_tiers_dir() / f"level{level}.parquet").to_pylist()
    ]
    stats = tier_stats(
        rows,
        read_json(EVENTS.metrics_file()),
        read_json(FILTER.metrics_file()),
        read_json(TIERS.metrics_file()),
    )
    write_metrics(stats, stats_report(STAGE, ".json"))
    write_text(stats_markdown(stats), stats_report(STAGE))
    end_stage(STAGE, f"{len(rows)} questions in {len(LEVELS)} tiers", started)
    return 0
