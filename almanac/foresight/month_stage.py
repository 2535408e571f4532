"""DVC stage ``foresight_month@<month>``: the six OpenForesight question steps of a month, in order, in one
process (one Python start-up and one round of DVC bookkeeping per month instead of six).

Each step is the step it was as a stage of its own: it reads the previous step's questions from disk, writes
its questions, rejects and metrics at the paths its declaration names (almanac.pipeline.foresight), and ends
with its own summary line and timings file, so the funnel, ``almanac status`` and the reports see the six
steps as before. The steps share the LLM cache file, so a rerun repeats no call. A step that fails stops the
month there with that step's exit code and one line naming the step (``foresight_qgen@<month>: ...``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from almanac.core.stage import parse_stage_args
from almanac.foresight import (
    answer_type_stage,
    dates_stage,
    leakage_stage,
    qgen_stage,
    select_stage,
    validate_stage,
)

# The steps in the order they run: the order of almanac.pipeline.foresight.PER_MONTH_STEPS (tested).
STEPS: Final[tuple[Callable[[str, dict[str, Any]], int], ...]] = (
    qgen_stage.run_step,
    validate_stage.run_step,
    select_stage.run_step,
    leakage_stage.run_step,
    answer_type_stage.run_step,
    dates_stage.run_step,
)


def run() -> int:
    args, params = parse_stage_args(__doc__ or "foresight_month", per_month=True)
    for step in STEPS:
        code = step(args.month, params)
        if code != 0:
            return code
    return 0
