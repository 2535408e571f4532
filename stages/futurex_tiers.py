"""DVC stage ``futurex_tiers``: the four FutureX tiers from the filtered events (funnel: futurex_stats);
Level-1 distractors from generated, unreleased OpenForesight candidates (none a released answer)."""

import sys

from almanac.futurex.tiers_stage import run

if __name__ == "__main__":
    sys.exit(run())
