"""DVC stage ``series_report``: the whole series style's report -> reports/series/all/"""

from __future__ import annotations

import time

from almanac.core.io import atomic_dir
from almanac.core.layout import report_dir
from almanac.core.stage import end_stage, parse_stage_args
from almanac.reports.scope import ALL, report_scope
from almanac.reports.series import build_report
from almanac.reports.write import write_report

STAGE = "series_report"


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    report = build_report(report_scope(ALL, params))
    with atomic_dir(report_dir("series", ALL)) as staging:
        written = write_report(report, staging)
    end_stage(STAGE, f"{len(report.tables)} tables, {len(written)} files written", started)
    return 0
