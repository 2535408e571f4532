"""DVC stage ``openforecast_report``: every month's and all's report -> reports/openforecast/"""

from __future__ import annotations

import sys

from almanac.reports.openforecast import build_report
from almanac.reports.stage import run_report_stage

if __name__ == "__main__":
    sys.exit(run_report_stage("openforecast", build_report, __doc__ or "openforecast_report"))
