"""DVC stage ``mirai_stats_report``: the mirai statistics, then every month's and all's report ->
reports/mirai/, in one process (each step with its own outputs, summary line and timings; ``--step
mirai_report`` runs one alone)."""

import sys

from almanac.reports.mirai_stats_report_stage import run

if __name__ == "__main__":
    sys.exit(run())
