"""DVC stage ``complex_events``: event articles and WCEP stories -> complex events with dated documents."""

import sys

from almanac.events.complex_events_stage import run

if __name__ == "__main__":
    sys.exit(run())
