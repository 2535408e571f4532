"""DVC stage ``event_stats``: DuckDB tables of timelines and task splits -> reports/openforecast_stats.md."""

from __future__ import annotations

import sys
import time

from almanac.core.io import write_json, write_text
from almanac.core.layout import event_splits_dir, metrics_path, plot_file, stats_report, timelines
from almanac.core.stage import parse_stage_args
from almanac.stats.events import event_statistics, event_stats_markdown, plot_series

STAGE = "event_stats"


def main() -> int:
    started = time.perf_counter()
    parse_stage_args(__doc__ or STAGE, per_month=False)
    stats = event_statistics(timelines(), event_splits_dir())
    write_text(event_stats_markdown(stats), stats_report("openforecast_stats"))
    for name, text in plot_series(stats).items():
        write_text(text, plot_file(name))
    stats["seconds"] = round(time.perf_counter() - started, 3)
    write_json(stats, metrics_path(STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
