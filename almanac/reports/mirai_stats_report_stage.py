"""DVC stage ``mirai_stats_report``: the MIRAI statistics (reports/mirai_stats.md, plot CSVs), then every
month's and all's report (reports/mirai/), in one process (one Python start-up and one round of DVC
bookkeeping instead of two; the statistics are < 1 s of work).

Each step is the stage it was: ``gdelt_stats`` and ``mirai_report`` write their own outputs and end with
their own summary line and timings file. A failed step stops the stage. ``python -m
stages.mirai_stats_report --step mirai_report`` runs one step alone.
"""

from __future__ import annotations

from typing import Final

from almanac.core.steps import Step, run_steps
from almanac.reports import gdelt_stats_stage
from almanac.reports.mirai import build_report
from almanac.reports.stage import run_report_stage


def report() -> int:
    """The style's reports: every month of ``months``, then the whole dataset's."""
    return run_report_stage("mirai", build_report, "mirai_report: every month's and all's report")


# In the order they run: the steps of the mirai_stats_report declaration (almanac.pipeline.finals; tested).
STEPS: Final[tuple[Step, ...]] = (("gdelt_stats", gdelt_stats_stage.run), ("mirai_report", report))


def run() -> int:
    return run_steps(STEPS)
