"""DVC stage ``foresight_dates@<month>``: parse, check and clamp dates (optionally repair them)."""

import sys

from almanac.foresight.dates_stage import run

if __name__ == "__main__":
    sys.exit(run())
