"""DVC stage ``foresight_answer_type@<month>``: keep questions whose answer is of an allowed class, then
run the question filter table (almanac/foresight/question_filters.py)."""

import sys

from almanac.foresight.answer_type_stage import run

if __name__ == "__main__":
    sys.exit(run())
