"""DVC stage ``futuresim_funnel``: the FutureSim question funnel (count, share and reasons per filter)."""

import sys

from almanac.reports.futuresim_funnel_stage import run

if __name__ == "__main__":
    sys.exit(run())
