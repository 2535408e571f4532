"""What every stage ``main`` does the same way: parse the command line, time, write rejects and metrics.

Every stage ends with one summary line on stderr, written by :func:`finish_stage` (stages with a ledger)
or :func:`end_stage` (the others)::

    foresight_qgen@2025-05: in=10 kept=4 rejected=6 (no_question=6) 1.3s
    corpus_stats: 30 articles from 4 sources described 0.4s

and its wall-clock seconds in ``metrics/timings/<stage>[@<month>].json`` (git-ignored, no DVC out), so
the tracked metrics stay the same bytes when nothing but the clock changed.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any

from almanac.core.errors import debug_enabled, describe, is_environment_failure
from almanac.core.io import write_json, write_parquet
from almanac.core.layout import timings_path
from almanac.core.metrics import write_metrics
from almanac.core.params import checked_month, load_params
from almanac.core.params_schema import ParamsError
from almanac.core.progress import configure_progress
from almanac.core.rejects import StageLedger
from almanac.core.without_pandas import pyarrow_without_pandas

# The ``<stage>[@<month>]`` of this process's run, set by start_stage: one process runs one stage.
_label: str | None = None


class StageError(RuntimeError):
    """A failure outside the data (endpoint down, key refused, quota spent, misconfigured role).

    The stage stops before writing anything, so its previous outputs stay in place, and exits 1 with
    ``<stage>[@<month>]: <message>`` as one line on stderr instead of a traceback.
    """


def parse_stage_args(
    description: str, per_month: bool, allow_all: bool = False
) -> tuple[argparse.Namespace, dict[str, Any]]:
    """The stage's arguments and its validated params; ``--month`` must be ``YYYY-MM`` and one of params'
    months (or "all" where ``allow_all``: the report stages) before any path is built from it."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--params", default="params.yaml", help="params file (default: params.yaml)")
    if per_month:
        parser.add_argument("--month", required=True, help="month to build, e.g. 2025-05")
    args = parser.parse_args()
    stem = Path(sys.argv[0]).stem
    # One line for a bad --month or params value too: the hook is set before either is read.
    report_stage_errors_in_one_line(stem + (f"@{args.month}" if per_month else ""))
    params = load_params(args.params)
    if per_month:
        checked_month(args.month, params, allow_all=allow_all)
    label = stem + (f"@{args.month}" if per_month else "")
    start_stage(label, params)
    return args, params


def start_stage(label: str, params: Mapping[str, Any]) -> None:
    """Name this process's run (for errors, the summary line and the timings file); read ``progress``."""
    global _label
    _label = label
    pyarrow_without_pandas()  # before any conversion: no stage uses pandas, and importing it costs ~0.75 s
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    report_stage_errors_in_one_line(label)
    configure_progress(params)


def report_stage_errors_in_one_line(label: str) -> None:
    """Print a failure the user can cause or fix as ``<label>: <message>`` (exit status 1, no traceback).

    That is a :class:`StageError` (endpoint, key, quota), a bad params value or ``--month``
    (:class:`ParamsError`), a full disk (naming the path) and a network failure (naming the host), each
    redacted (``almanac.core.errors``). A hook rather than a try block in every stage ``main``: every
    stage that parses its arguments here gets it. Any other exception still prints its full traceback
    (that one is a bug), and so does everything with ``ALMANAC_DEBUG=1``.
    """
    previous = getattr(sys.excepthook, "almanac_previous", sys.excepthook)

    def hook(kind: type[BaseException], error: BaseException, trace: TracebackType | None) -> None:
        if is_user_facing(error) and not debug_enabled():
            print(f"{label}: {describe(error)}", file=sys.stderr, flush=True)
        else:
            previous(kind, error, trace)

    hook.almanac_previous = previous  # type: ignore[attr-defined]
    sys.excepthook = hook


def is_user_facing(error: BaseException) -> bool:
    """Whether ``error`` is one the user caused or can fix (one line), not a bug (a traceback)."""
    if isinstance(error, StageError | ParamsError):
        return True
    return is_environment_failure(error)


def finish_stage(
    ledger: StageLedger, started: float, rejects_path: Path, metrics_path: Path
) -> dict[str, Any]:
    """Write the rejects table and the metrics JSON (after checking no item went missing), then the
    timings file and the summary line (:func:`end_stage`)."""
    metrics = ledger.metrics()  # checks the balance before anything is written
    write_parquet(ledger.rejects_table(), rejects_path)
    written = write_metrics(metrics, metrics_path)
    counts = counts_summary(ledger.items_in, ledger.items_out, ledger.rejected_by_reason)
    end_stage(ledger.stage, counts, started, ledger.timings, ledger.run_counts)
    return written


def end_stage(
    stage: str,
    produced: str,
    started: float,
    parts: Mapping[str, float] | None = None,
    run_counts: Mapping[str, float] | None = None,
) -> None:
    """The run's last words: its seconds to the timings file, and ``<label>: <produced> <t>s`` on stderr.

    ``produced`` says what the run made: the ledger counts, or for a stage without a ledger what it
    wrote. ``parts`` are seconds of parts of the work (e.g. LLM calls per role), ``run_counts`` what this
    run did that another run of the same inputs may do differently (cache hits, HTTP attempts). The
    label is the one :func:`start_stage` set, else ``stage`` (library code and tests that call this).
    """
    seconds = time.perf_counter() - started
    label = _label or stage
    timings = {
        "stage": label,
        "seconds": round(seconds, 3),
        "parts": {name: round(value, 3) for name, value in sorted((parts or {}).items())},
        "run": {name: round(value, 6) for name, value in sorted((run_counts or {}).items())},
    }
    write_json(timings, timings_path(label))
    print(summary_line(label, produced, seconds), file=sys.stderr, flush=True)


def counts_summary(items_in: int, items_out: int, rejected_by_reason: Mapping[str, int]) -> str:
    """``in=N kept=N rejected=N (<reason>=n, ...)``, reasons in name order; no parentheses without rejects."""
    rejected = sum(rejected_by_reason.values())
    text = f"in={items_in} kept={items_out} rejected={rejected}"
    if rejected_by_reason:
        text += " (" + ", ".join(f"{reason}={n}" for reason, n in sorted(rejected_by_reason.items())) + ")"
    return text


def summary_line(label: str, produced: str, seconds: float) -> str:
    return f"{label}: {produced} {seconds:.1f}s"
