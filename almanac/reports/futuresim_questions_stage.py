"""DVC stage ``futuresim_questions``: FutureSim's answerability filter, then the question funnel, in one
process (one Python start-up and one round of DVC bookkeeping instead of two; the funnel is < 1 s of work).

Each step is the stage it was: ``futuresim_answerability`` writes the question set, its evidence, rejects and
metrics; ``futuresim_funnel`` counts them into reports/futuresim_funnel.{md,json}; each ends with its own
summary line and timings file. A failed filter stops the stage before the funnel. ``python -m
stages.futuresim_questions --step futuresim_funnel`` runs one step alone.

It lives in almanac.reports because its second step is a report: almanac.reports imports almanac.futuresim,
never the reverse.
"""

from __future__ import annotations

from typing import Final

from almanac.core.steps import Step, run_steps
from almanac.futuresim import answerability_stage
from almanac.reports import futuresim_funnel_stage

# In the order they run: the order of almanac.pipeline.futuresim.QUESTIONS_STEPS (tested).
STEPS: Final[tuple[Step, ...]] = (
    ("futuresim_answerability", answerability_stage.run),
    ("futuresim_funnel", futuresim_funnel_stage.run),
)


def run() -> int:
    return run_steps(STEPS)
