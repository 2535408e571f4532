"""DVC stage ``futuresim_repair``: FutureSim's resolution-date repair loop over the released splits."""

import sys

from almanac.futuresim.repair_stage import run

if __name__ == "__main__":
    sys.exit(run())
