"""DVC stage ``wcep_ingest``: Wikipedia Current Events Portal day pages -> one row per event."""

import sys

from almanac.wcep.ingest_stage import run

if __name__ == "__main__":
    sys.exit(run())
