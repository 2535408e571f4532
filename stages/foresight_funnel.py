"""DVC stage ``foresight_funnel``: Table-1 style funnel and Table-4 style answer types -> reports/."""

import sys

from almanac.reports.foresight_funnel_stage import run

if __name__ == "__main__":
    sys.exit(run())
