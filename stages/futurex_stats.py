"""DVC stage ``futurex_stats``: the FutureX funnel (each filter's counts) and the questions per tier."""

import sys

from almanac.reports.futurex_stats_stage import run

if __name__ == "__main__":
    sys.exit(run())
