"""What a metrics JSON may hold: counts and floats rounded to one precision, and no wall-clock time.

Metrics files are versioned (in git or the DVC cache, their md5s in ``dvc.lock``) and compared between
revisions by ``dvc metrics diff`` and ``almanac diff``. A wall-clock figure differs on every run and a
float written to 17 digits differs with summation order, so either would make a rerun that changed nothing
rewrite the file and dirty the lock. Every metrics writer goes through :func:`write_metrics`, which rounds
floats and refuses time keys; stage timings go to the untracked ``metrics/timings/`` (see
``almanac.core.stage``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from almanac.core.io import write_json

# Four decimal places: a share to 0.01 percentage points, a cost to a hundredth of a cent. Finer digits
# of a metric are float noise, not a change anyone acts on.
METRIC_DECIMALS = 4


def is_timing_key(key: str) -> bool:
    """``seconds`` or ``<anything>.seconds`` (e.g. an LLM role's ``generator.seconds``): a wall-clock key.

    Revisions written before timings left the metrics still carry such keys; ``almanac diff`` uses this
    to fold them.
    """
    return key == "seconds" or key.endswith(".seconds")


def timing_keys(data: Any, prefix: str = "") -> list[str]:
    """Dotted paths of every wall-clock key in ``data``, at any depth."""
    found: list[str] = []
    if isinstance(data, Mapping):
        for key, value in data.items():
            path = f"{prefix}{key}"
            if is_timing_key(str(key)):
                found.append(path)
            found += timing_keys(value, f"{path}.")
    elif isinstance(data, list | tuple):
        for index, value in enumerate(data):
            found += timing_keys(value, f"{prefix}{index}.")
    return found


def round_metrics(data: Any) -> Any:
    """``data`` with every float rounded to :data:`METRIC_DECIMALS` places (ints, bools, text unchanged)."""
    if isinstance(data, float):
        # + 0.0 turns the -0.0 that rounding a tiny negative gives into 0.0, which JSON writes as 0.0.
        return round(data, METRIC_DECIMALS) + 0.0
    if isinstance(data, Mapping):
        return {key: round_metrics(value) for key, value in data.items()}
    if isinstance(data, list | tuple):
        return [round_metrics(value) for value in data]
    return data


def write_metrics(data: Mapping[str, Any], path: str | Path) -> dict[str, Any]:
    """Write a metrics JSON (atomic, key-sorted) with floats rounded; returns what was written.

    Raises ValueError on a wall-clock key, so no writer can put a time back into a tracked file.
    """
    timed = timing_keys(data)
    if timed:
        raise ValueError(
            f"{path}: metrics must hold no wall-clock time, found {timed}; timings go to metrics/timings/"
        )
    rounded: dict[str, Any] = round_metrics(data)
    write_json(rounded, path)
    return rounded
