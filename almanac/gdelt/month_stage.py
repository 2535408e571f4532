"""DVC stage ``gdelt_month@<month>``: the month's GDELT download, then its ingest, in one process (one
Python start-up and one round of DVC bookkeeping per month instead of two).

Each step is the stage it was: ``gdelt_download`` lists and MD5-verifies the month's files (kept between
runs), ``gdelt_ingest`` parses them into events and mentions; each writes its own outputs and metrics and ends
with its own summary line and timings file. A failed download stops the month before the ingest.
``python -m stages.gdelt_month --month M --step gdelt_download`` runs one step alone.
"""

from __future__ import annotations

from typing import Final

from almanac.core.steps import Step, run_steps
from almanac.gdelt import download_stage, ingest_stage

# In the order they run: the order of almanac.pipeline.mirai.MONTH_STEPS (tested).
STEPS: Final[tuple[Step, ...]] = (("gdelt_download", download_stage.run), ("gdelt_ingest", ingest_stage.run))


def run() -> int:
    return run_steps(STEPS)
