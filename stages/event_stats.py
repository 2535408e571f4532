"""DVC stage ``event_stats``: DuckDB tables of timelines and task splits -> reports/openforecast_stats.md."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from almanac.core.io import write_json, write_text
from almanac.core.layout import metrics_path
from almanac.core.stage import parse_stage_args
from almanac.events.samples import EVENTS_DIR, TIMELINES_PATH
from almanac.stats.events import event_statistics, event_stats_markdown, plot_series

STAGE = "event_stats"
MARKDOWN_OUT = Path("reports/openforecast_stats.md")
PLOTS_DIR = Path("reports/plots")


def main() -> int:
    started = time.perf_counter()
    parse_stage_args(__doc__ or STAGE, per_month=False)
    stats = event_statistics(TIMELINES_PATH, EVENTS_DIR / "splits")
    write_text(event_stats_markdown(stats), MARKDOWN_OUT)
    for name, text in plot_series(stats).items():
        write_text(text, PLOTS_DIR / name)
    stats["seconds"] = round(time.perf_counter() - started, 3)
    write_json(stats, metrics_path(STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
