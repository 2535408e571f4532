"""DVC stage ``gdelt_clean``: MIRAI's rules over the GDELT events of every month in scope -> events, quads."""

import sys

from almanac.gdelt.clean_stage import run

if __name__ == "__main__":
    sys.exit(run())
