"""DVC stage ``event_timeline``: complex events -> ordered atomic-event timelines with arguments."""

import sys

from almanac.events.timeline_stage import run

if __name__ == "__main__":
    sys.exit(run())
