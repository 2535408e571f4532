"""DVC stage ``foresight_select@<month>``: one question per article (best of several, by the validator)."""

import sys

from almanac.foresight.select_stage import run

if __name__ == "__main__":
    sys.exit(run())
