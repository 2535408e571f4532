"""DVC stage ``gdelt_stats``: DuckDB counts of GDELT events, quads, articles and queries -> reports/."""

import sys

from almanac.reports.gdelt_stats_stage import run

if __name__ == "__main__":
    sys.exit(run())
