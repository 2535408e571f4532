"""DVC stage ``mirai_report``: every month's and all's report -> reports/mirai/"""

from __future__ import annotations

import sys

from almanac.reports.mirai import build_report
from almanac.reports.stage import run_report_stage

if __name__ == "__main__":
    sys.exit(run_report_stage("mirai", build_report, __doc__ or "mirai_report"))
