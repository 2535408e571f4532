"""DVC stage ``openforesight_report``: every month's and all's report -> reports/openforesight/"""

from __future__ import annotations

import sys

from almanac.reports.openforesight import build_report
from almanac.reports.stage import run_report_stage

if __name__ == "__main__":
    sys.exit(run_report_stage("openforesight", build_report, __doc__ or "openforesight_report"))
