"""DVC stage ``check_<style>``: the style's invariants over every released row; exit 1 on any violation.

It is the last stage of each style's branch, so ``dvc repro`` stops on a leaking split. The summary it writes
holds counts only (rows checked and violations per invariant), so a rebuild with no change rewrites nothing.
"""

from __future__ import annotations

import argparse
import sys
import time

from almanac.check.run import ALL, STYLES, NotBuiltError, check_style, cross_style
from almanac.core.layout import check_report
from almanac.core.metrics import write_metrics
from almanac.core.params import load_params
from almanac.core.stage import end_stage, start_stage

CROSS_STYLE = "cross_style"


def run() -> int:
    started = time.perf_counter()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--params", default="params.yaml")
    # cross_style: every style's released rows against the others' (``almanac check all`` runs it last).
    parser.add_argument("--style", required=True, choices=(*STYLES, CROSS_STYLE))
    args = parser.parse_args()
    label = f"check_{args.style}"  # the DVC stage's name
    try:
        params = load_params(args.params)
        start_stage(label, params)
        report = cross_style(params) if args.style == CROSS_STYLE else check_style(args.style, ALL, params)
    except (NotBuiltError, OSError, ValueError) as error:
        print(f"{label}: {error}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(line)
    if not report.ok:
        # No summary is written, so DVC records no result and the stage stays out of date.
        names = ", ".join(result.name for result in report.violated)
        print(f"{label}: released rows violate {names}", file=sys.stderr)
        return 1
    write_metrics(report.summary(), check_report(args.style))
    checked = sum(result.checked for result in report.invariants.values())
    produced = f"ok, {report.rows} rows, {len(report.invariants)} invariants, {checked} checks"
    end_stage(label, produced, started)
    return 0
