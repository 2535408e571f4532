"""DVC stage ``openforesight_stats_report``: the OpenForesight funnel (reports/foresight_funnel.{md,json}),
then every month's and all's report (reports/openforesight/), in one process (one Python start-up and one
round of DVC bookkeeping instead of two; the statistics are < 1 s of work).

Each step is the stage it was: ``foresight_funnel`` and ``openforesight_report`` write their own outputs and
end with their own summary line and timings file. A failed step stops the stage. ``python -m
stages.openforesight_stats_report --step openforesight_report`` runs one step alone.
"""

from __future__ import annotations

from typing import Final

from almanac.core.steps import Step, run_steps
from almanac.reports import foresight_funnel_stage
from almanac.reports.openforesight import build_report
from almanac.reports.stage import run_report_stage


def report() -> int:
    """The style's reports: every month of ``months``, then the whole dataset's."""
    return run_report_stage(
        "openforesight", build_report, "openforesight_report: every month's and all's report"
    )


# In the order they run: the steps of the openforesight_stats_report declaration (almanac.pipeline.finals).
STEPS: Final[tuple[Step, ...]] = (
    ("foresight_funnel", foresight_funnel_stage.run),
    ("openforesight_report", report),
)


def run() -> int:
    return run_steps(STEPS)
