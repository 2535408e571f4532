"""DVC stage ``foresight_qgen@<month>``: deduplicated articles -> candidate questions (generator role)."""

import sys

from almanac.foresight.qgen_stage import run

if __name__ == "__main__":
    sys.exit(run())
