"""The body of the ``<style>_report`` DVC stages: build one style's report for one month or all, write it."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from almanac.core.io import atomic_dir
from almanac.core.layout import report_dir
from almanac.core.stage import end_stage, parse_stage_args
from almanac.reports.model import Report
from almanac.reports.scope import ReportScope, report_scope
from almanac.reports.write import write_report


def run_report_stage(style: str, build: Callable[[ReportScope], Report], description: str) -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(description, per_month=True, allow_all=True)
    try:
        report = build(report_scope(args.month, params))
    except (OSError, ValueError) as error:
        print(f"{style} report: {error}", file=sys.stderr)
        return 1
    # The folder is swapped whole, so a series dropped from the builder leaves no stale CSV or PNG behind.
    with atomic_dir(report_dir(style, args.month)) as staging:
        written = write_report(report, staging)
    produced = f"{len(report.tables)} tables, {len(report.series)} plot series, {len(written)} files written"
    end_stage(f"{style}_report", produced, started)
    return 0
