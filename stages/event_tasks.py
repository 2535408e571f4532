"""DVC stage ``event_tasks``: timelines -> the six forecasting tasks (STF, LTF, AQA, MCNC, MCAC, VQA)."""

import sys

from almanac.events.tasks_stage import run

if __name__ == "__main__":
    sys.exit(run())
