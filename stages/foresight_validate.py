"""DVC stage ``foresight_validate@<month>``: the validator role accepts or rejects each candidate."""

import sys

from almanac.foresight.validate_stage import run

if __name__ == "__main__":
    sys.exit(run())
