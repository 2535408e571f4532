"""DVC stage ``futurex_events``: candidate events from the released OpenForesight test questions, the GDELT
day-pairs MIRAI queries come from, and the numeric answers OpenForesight's answer-type filter drops; none
repeats a released train/validation row of another style (``check.cross_style``)."""

import sys

from almanac.futurex.events_stage import run

if __name__ == "__main__":
    sys.exit(run())
