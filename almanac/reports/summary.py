"""A style's summary: the one line `dvc metrics show` prints for it (reports/<style>/all/summary.json).

Every other count file is a DVC output, not a DVC metric: each stage's metrics (``reports/metrics/``, in
the DVC cache), each report's ``metrics.json`` and the check counts (``reports/check/``, git-tracked).
``dvc metrics show`` prints one column per key of every declared file, the union over the styles, so every
style writes the same few flat keys (``SUMMARY_KEYS``, at most 12 columns), whose values or names carry
their unit: what the first funnel step read ("30 articles"), what was released ("7 questions"), the rows
per split, the check's verdict and what the LLM calls cost. The detail (rows per split and month, each
funnel step with its unit, rejects by reason) is in the report beside it: ``metrics.json`` and
``report.md``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from almanac.core.io import read_json
from almanac.core.layout import check_report

SPLITS = ("train", "validation", "test")
# The columns of `dvc metrics show`, the same for every style.
SUMMARY_KEYS = (
    "check",
    "read",
    "released",
    *SPLITS,
    "llm_requests",
    "llm_tokens",
    "llm_cost_usd",
)


def style_summary(
    style: str, released: Mapping[str, Mapping[str, int]], metrics: Mapping[str, Any], row_unit: str
) -> dict[str, Any]:
    """``build_summary`` from a whole-dataset report's metrics (``funnel``, ``llm``) and the style's check."""
    check = read_check(check_report(style))
    return build_summary(released, metrics["funnel"], metrics["llm"], check, row_unit)


def build_summary(
    released: Mapping[str, Mapping[str, int]],
    funnel: Mapping[str, Mapping[str, Any]],
    llm: Mapping[str, float],
    check: Mapping[str, Any] | None,
    row_unit: str = "rows",
) -> dict[str, Any]:
    """The summary of one style's whole dataset: ``SUMMARY_KEYS``, in that order.

    ``released``: split -> month -> rows released. ``funnel``: stage -> {"in", "out", "unit", ...} in step
    order, as ``almanac.reports.funnel.funnel_metrics`` gives it. ``llm``: counter -> total over the steps.
    ``check``: the check stage's counts (``reports/check/<style>.json``), or None when it has not run.
    ``row_unit``: what one released row is (questions, samples, queries); the funnel's last step may count
    something else (MIRAI's split reads day-pair groups).
    """
    per_split = {split: sum(months.values()) for split, months in released.items()}
    steps = list(funnel.values())
    first_unit = str(steps[0].get("unit", "")) if steps else ""
    summary: dict[str, Any] = {
        "check": check_verdict(check),
        "read": with_unit(int(steps[0]["in"]), first_unit) if steps else "nothing",
        "released": with_unit(sum(per_split.values()), row_unit),
        **{split: per_split.get(split, 0) for split in SPLITS},
        "llm_requests": int(llm.get("requests", 0)),
        "llm_tokens": int(llm.get("prompt_tokens", 0)) + int(llm.get("completion_tokens", 0)),
        "llm_cost_usd": round(float(llm.get("cost_usd", 0.0)), 6),
    }
    others = sorted(set(per_split) - set(SPLITS))
    if others:  # a split outside train/validation/test would be hidden otherwise
        raise ValueError(f"summary: unknown split(s) {others}; expected {list(SPLITS)}")
    return summary


def with_unit(count: int, unit: str) -> str:
    """``30 articles``: a count with what it counts (thousands separated, as the reports print them)."""
    return f"{count:,} {unit}".strip()


def check_verdict(check: Mapping[str, Any] | None) -> str:
    """``ok``, ``N violations`` (summed over every invariant), or ``not run`` when the check has no file."""
    if check is None:
        return "not run"
    violations = sum(int(item["violations"]) for item in check["invariants"].values())
    if bool(check["ok"]) and not violations:
        return "ok"
    return f"{violations} violations" if violations else "failed"


def read_check(path: Path) -> dict[str, Any] | None:
    """The check stage's counts, None when the file is absent (``almanac report`` before any check)."""
    return read_json(path) if path.is_file() else None
