"""DVC stage ``foresight_split``: train / validation / test by resolution month -> released Parquet."""

import sys

from almanac.foresight.split_stage import run

if __name__ == "__main__":
    sys.exit(run())
