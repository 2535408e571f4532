"""DVC stage ``series_report``: the whole series style's report -> reports/series/all/"""

import sys

from almanac.reports.series_report_stage import run

if __name__ == "__main__":
    sys.exit(run())
