"""DVC stage ``futuresim_questions``: FutureSim's two-sided answerability filter (the question set), then the
question funnel, in one process (each step with its own outputs, summary line and timings; ``--step
futuresim_funnel`` runs one alone)."""

import sys

from almanac.reports.futuresim_questions_stage import run

if __name__ == "__main__":
    sys.exit(run())
