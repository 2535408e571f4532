"""DVC stage ``openforecast_stats_report``: the openforecast statistics, then every month's and all's report
-> reports/openforecast/, in one process (each step with its own outputs, summary line and timings; ``--step
openforecast_report`` runs one alone)."""

import sys

from almanac.reports.openforecast_stats_report_stage import run

if __name__ == "__main__":
    sys.exit(run())
