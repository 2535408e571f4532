"""The body of the ``<style>_report`` DVC stages: build one style's reports, every month and all, write them.

One process per style rather than one per (style, month): each month's report is a folder of its own
(``reports/<style>/<month>/``, and ``all/`` for the whole dataset), written exactly as a per-month stage wrote
it, and the stage's one output is the style's folder. A stage per month paid the interpreter, the report
libraries and DVC's bookkeeping once per month, for seconds of work (docs/build_speed.md).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from almanac.core.io import atomic_dir
from almanac.core.layout import report_style_dir
from almanac.core.params import report_scopes
from almanac.core.stage import end_stage, parse_stage_args
from almanac.reports.model import Report
from almanac.reports.scope import ReportScope, report_scope
from almanac.reports.write import write_report


def run_report_stage(style: str, build: Callable[[ReportScope], Report], description: str) -> int:
    started = time.perf_counter()
    _, params = parse_stage_args(description, per_month=False)
    try:
        # Every report is built before anything is written: a failure leaves the previous reports whole.
        reports = {scope: build(report_scope(scope, params)) for scope in report_scopes(params)}
    except (OSError, ValueError) as error:
        print(f"{style} report: {error}", file=sys.stderr)
        return 1
    # The style's folder is swapped whole, so a month dropped from params (or a series dropped from a
    # builder) leaves no stale folder, CSV or PNG behind.
    written = 0
    with atomic_dir(report_style_dir(style)) as staging:
        for scope, report in reports.items():
            written += len(write_report(report, staging / scope))
    tables = sum(len(report.tables) for report in reports.values())
    series = sum(len(report.series) for report in reports.values())
    produced = (
        f"{len(reports)} reports ({', '.join(reports)}): {tables} tables, {series} plot series, "
        f"{written} files written"
    )
    end_stage(f"{style}_report", produced, started)
    return 0
