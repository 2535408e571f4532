"""DVC stage ``event_stats``: DuckDB tables of timelines and task splits -> reports/openforecast_stats.md."""

from __future__ import annotations

import time

from almanac.core.io import write_text
from almanac.core.layout import event_splits_dir, metrics_path, plot_file, stats_report, timelines
from almanac.core.metrics import write_metrics
from almanac.core.stage import end_stage, parse_stage_args
from almanac.reports.event_stats import event_statistics, event_stats_markdown, plot_series

STAGE = "event_stats"


def run() -> int:
    started = time.perf_counter()
    parse_stage_args(__doc__ or STAGE, per_month=False)
    stats = event_statistics(timelines(), event_splits_dir())
    write_text(event_stats_markdown(stats), stats_report("openforecast_stats"))
    series = plot_series(stats)
    for name, text in series.items():
        write_text(text, plot_file(name))
    write_metrics(stats, metrics_path(STAGE))
    complex_events = sum(stats["splits"].get("complex_events", {}).values())
    end_stage(STAGE, f"{complex_events} complex events described, {len(series)} plot series written", started)
    return 0
