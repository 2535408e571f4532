"""DVC stage ``event_stats``: DuckDB tables of timelines and task splits -> reports/openforecast_stats.md."""

import sys

from almanac.reports.event_stats_stage import run

if __name__ == "__main__":
    sys.exit(run())
