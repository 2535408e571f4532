"""DVC stage ``series_questions``: observations -> question splits by resolution month, each question with
its news context (top-k FutureSim chunks available by its forecast date), data/series/splits/"""

import sys

from almanac.series.questions_stage import run

if __name__ == "__main__":
    sys.exit(run())
