"""DVC stage ``check``: every style's invariants over every released row, then cross-style contamination;
exit 1 on any violation.

One process for the seven checks (openforesight, futuresim, openforecast, mirai, futurex, series, then
cross_style), each writing its own ``reports/check/<style>.json`` with its own summary line and timings
(``check_<style>``). It is the last stage before the reports, so ``dvc repro`` stops on a leaking split. A
style that fails is reported and the others still run (so one build names every leak), but the stage exits 1
and writes no summary for that style, so DVC records no result and the stage stays out of date. The summaries
hold counts only (rows checked and violations per invariant), so a rebuild with no change rewrites nothing.

``--style`` (repeatable) checks only the styles named: a partial build, e.g. the MIRAI branch of a GDELT-only
build (``dvc repro relation_split`` then ``python -m stages.check --style mirai``).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Mapping
from typing import Any, Final

from almanac.check.run import ALL, STYLES, NotBuiltError, check_style, cross_style
from almanac.core.layout import check_report
from almanac.core.metrics import write_metrics
from almanac.core.params import load_params
from almanac.core.stage import end_stage, start_stage

CROSS_STYLE: Final = "cross_style"
# The order the stage runs them in: each style's own invariants, then the comparison across styles.
CHECKS: Final = ("openforesight", "futuresim", "openforecast", "mirai", "futurex", "series", CROSS_STYLE)
if set(CHECKS) != {*STYLES, CROSS_STYLE}:
    raise ValueError("the check stage must run every style of almanac.check.run.STYLES")


def run() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--params", default="params.yaml")
    parser.add_argument(
        "--style", action="append", choices=CHECKS, help="check only this style (repeatable; default: all)"
    )
    args = parser.parse_args()
    try:
        params = load_params(args.params)
    except (OSError, ValueError) as error:
        print(f"check: {error}", file=sys.stderr)
        return 1
    chosen = set(args.style or CHECKS)
    failed = [style for style in CHECKS if style in chosen and not check_one(style, params)]
    if failed:
        print(f"check: FAILED for {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def check_one(style: str, params: Mapping[str, Any]) -> bool:
    """Run one style's check (or the cross-style one); write its summary when it passes. True when it does."""
    started = time.perf_counter()
    label = f"check_{style}"  # the name of its summary line and timings file (a stage of its own before)
    try:
        start_stage(label, params)
        report = cross_style(params) if style == CROSS_STYLE else check_style(style, ALL, params)
    except (NotBuiltError, OSError, ValueError) as error:
        print(f"{label}: {error}", file=sys.stderr)
        return False
    for line in report.lines():
        print(line)
    if not report.ok:
        names = ", ".join(result.name for result in report.violated)
        print(f"{label}: released rows violate {names}", file=sys.stderr)
        return False
    write_metrics(report.summary(), check_report(style))
    checked = sum(result.checked for result in report.invariants.values())
    produced = f"ok, {report.rows} rows, {len(report.invariants)} invariants, {checked} checks"
    end_stage(label, produced, started)
    return True
