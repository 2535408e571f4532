"""DVC stage ``series_questions``: observations -> question splits by resolution month, data/series/splits/"""

import sys

from almanac.series.questions_stage import run

if __name__ == "__main__":
    sys.exit(run())
