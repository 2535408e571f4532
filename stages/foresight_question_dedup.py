"""DVC stage ``foresight_question_dedup``: near-duplicate questions collapsed across all months."""

import sys

from almanac.foresight.question_dedup_stage import run

if __name__ == "__main__":
    sys.exit(run())
