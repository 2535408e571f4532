"""A style's summary: the few numbers `dvc metrics show` prints for it (reports/<style>/all/summary.json).

Every other count file is a DVC output, not a DVC metric: each stage's metrics (``reports/metrics/``, in
the DVC cache), each report's ``metrics.json`` and the check counts (``reports/check/``, git-tracked).
Declared as metrics they made ``dvc metrics show`` a table of over a thousand columns. The summary keeps
what a reader scans after a build: released rows per split and month, how many items each funnel step
kept, whether the invariant check passed and what the LLM calls cost. Its size grows with the steps,
split-months and LLM counters (tens of keys), never with the data.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from almanac.core.io import read_json
from almanac.core.layout import check_report


def style_summary(
    style: str, released: Mapping[str, Mapping[str, int]], metrics: Mapping[str, Any]
) -> dict[str, Any]:
    """``build_summary`` from a whole-dataset report's metrics (``funnel``, ``llm``) and the style's check."""
    return build_summary(released, metrics["funnel"], metrics["llm"], read_check(check_report(style)))


def build_summary(
    released: Mapping[str, Mapping[str, int]],
    funnel: Mapping[str, Mapping[str, Any]],
    llm: Mapping[str, float],
    check: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The summary of one style's whole dataset.

    ``released``: split -> month -> rows released. ``funnel``: stage -> {"in", "out", ...} in step order, as
    ``almanac.reports.funnel.funnel_metrics`` gives it. ``llm``: counter -> total over the steps.
    ``check``: the check stage's counts (``reports/check/<style>.json``), or None when it has not run.
    """
    summary: dict[str, Any] = {
        "rows": row_counts(released),
        "funnel": funnel_counts(funnel),
        "llm": dict(llm),
    }
    if check is not None:
        summary["check"] = check_counts(check)
    return summary


def row_counts(released: Mapping[str, Mapping[str, int]]) -> dict[str, Any]:
    """``all`` rows, and per split its months and its ``all``: ``rows.train.2025-04``, ``rows.train.all``.

    Short keys on purpose: ``dvc metrics show`` prints one column per key.
    """
    rows: dict[str, Any] = {
        split: {**months, "all": sum(months.values())} for split, months in released.items()
    }
    return {"all": sum(split["all"] for split in rows.values()), **rows}


def funnel_counts(funnel: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """What the first step read, then what each step kept.

    Keys are numbered in step order (``00_in``, ``01_<first stage>``, ...): JSON keys and
    ``dvc metrics show`` columns are sorted by name, and a funnel read out of order says nothing.
    """
    steps = list(funnel.items())
    if not steps:
        return {}
    counts = {"00_in": int(steps[0][1]["in"])}
    for index, (stage, step) in enumerate(steps, start=1):
        counts[f"{index:02d}_{stage}"] = int(step["out"])
    return counts


def check_counts(check: Mapping[str, Any]) -> dict[str, Any]:
    """Passed or not, rows checked, and the violations summed over every invariant."""
    return {
        "ok": bool(check["ok"]),
        "rows": int(check["rows"]),
        "violations": sum(int(item["violations"]) for item in check["invariants"].values()),
    }


def read_check(path: Path) -> dict[str, Any] | None:
    """The check stage's counts, None when the file is absent (``almanac report`` before any check)."""
    return read_json(path) if path.is_file() else None
