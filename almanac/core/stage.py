"""What every stage ``main`` does the same way: parse the command line, time, write rejects and metrics."""

from __future__ import annotations

import argparse
import logging
import time
from pathlib import Path
from typing import Any

from almanac.core.io import write_json, write_parquet
from almanac.core.params import load_params
from almanac.core.rejects import StageLedger


def parse_stage_args(description: str, per_month: bool) -> tuple[argparse.Namespace, dict[str, Any]]:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--params", default="params.yaml", help="params file (default: params.yaml)")
    if per_month:
        parser.add_argument("--month", required=True, help="month to build, e.g. 2025-05")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    return args, load_params(args.params)


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
