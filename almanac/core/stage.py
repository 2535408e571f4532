"""What every stage ``main`` does the same way: parse the command line, time, write rejects and metrics."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from almanac.core.io import write_json, write_parquet
from almanac.core.params import load_params
from almanac.core.rejects import StageLedger


class StageError(RuntimeError):
    """A failure outside the data (endpoint down, key refused, quota spent, misconfigured role).

    The stage stops before writing anything, so its previous outputs stay in place, and exits 1 with
    ``<stage>[@<month>]: <message>`` as one line on stderr instead of a traceback.
    """


def parse_stage_args(description: str, per_month: bool) -> tuple[argparse.Namespace, dict[str, Any]]:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--params", default="params.yaml", help="params file (default: params.yaml)")
    if per_month:
        parser.add_argument("--month", required=True, help="month to build, e.g. 2025-05")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    label = Path(sys.argv[0]).stem + (f"@{args.month}" if per_month else "")
    report_stage_errors_in_one_line(label)
    return args, load_params(args.params)


def report_stage_errors_in_one_line(label: str) -> None:
    """Print an uncaught :class:`StageError` as ``<label>: <message>`` (exit status 1, no traceback).

    A hook rather than a try block in every stage ``main``: every stage that parses its arguments here
    gets it, and any other exception still prints its full traceback (that one is a bug).
    """
    previous = sys.excepthook

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if isinstance(error, StageError):
            print(f"{label}: {one_line(str(error))}", file=sys.stderr, flush=True)
        else:
            previous(kind, error, trace)

    sys.excepthook = hook


def one_line(text: str) -> str:
    return " ".join(text.split())


def finish_stage(
    ledger: StageLedger, started: float, rejects_path: Path, metrics_path: Path
) -> dict[str, Any]:
    """Write the rejects table and the metrics JSON (after checking no item went missing)."""
    metrics = ledger.metrics(time.perf_counter() - started)
    write_parquet(ledger.rejects_table(), rejects_path)
    write_json(metrics, metrics_path)
    logging.getLogger(ledger.stage).info(
        "in=%d out=%d rejected=%d %s",
        ledger.items_in,
        ledger.items_out,
        ledger.rejected,
        ledger.rejected_by_reason,
    )
    return metrics
