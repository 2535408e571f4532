"""DVC stage ``openforesight_stats_report``: the openforesight statistics, then every month's and all's
report -> reports/openforesight/, in one process (each step with its own outputs, summary line and timings;
``--step openforesight_report`` runs one alone)."""

import sys

from almanac.reports.openforesight_stats_report_stage import run

if __name__ == "__main__":
    sys.exit(run())
