"""DVC stage ``futuresim_answerability``: FutureSim's two-sided answerability filter (the question set)."""

import sys

from almanac.futuresim.answerability_stage import run

if __name__ == "__main__":
    sys.exit(run())
