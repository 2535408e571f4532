"""DVC stage ``openforecast_stats_report``: the OpenForecast statistics (reports/openforecast_stats.md, plot
CSVs), then every month's and all's report (reports/openforecast/), in one process (one Python start-up and
one round of DVC bookkeeping instead of two; the statistics are < 1 s of work).

Each step is the stage it was: ``event_stats`` and ``openforecast_report`` write their own outputs and end
with their own summary line and timings file. A failed step stops the stage. ``python -m
stages.openforecast_stats_report --step openforecast_report`` runs one step alone.
"""

from __future__ import annotations

from typing import Final

from almanac.core.steps import Step, run_steps
from almanac.reports import event_stats_stage
from almanac.reports.openforecast import build_report
from almanac.reports.stage import run_report_stage


def report() -> int:
    """The style's reports: every month of ``months``, then the whole dataset's."""
    return run_report_stage(
        "openforecast", build_report, "openforecast_report: every month's and all's report"
    )


# In the order they run: the steps of the openforecast_stats_report declaration (almanac.pipeline.finals).
STEPS: Final[tuple[Step, ...]] = (("event_stats", event_stats_stage.run), ("openforecast_report", report))


def run() -> int:
    return run_steps(STEPS)
