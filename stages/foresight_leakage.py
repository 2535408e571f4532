"""DVC stage ``foresight_leakage@<month>``: LLM rewrite of revealing spans, then a string re-scan."""

import sys

from almanac.foresight.leakage_stage import run

if __name__ == "__main__":
    sys.exit(run())
