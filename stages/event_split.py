"""DVC stage ``event_split``: samples -> data/events/splits/<split>/<task>.parquet, invariants re-checked."""

import sys

from almanac.events.split_stage import run

if __name__ == "__main__":
    sys.exit(run())
