"""The metrics part of ``almanac diff``: every change when few differ, else a summary of about 30 lines.

One param change can move hundreds of counts (MIRAI's ``balance.*`` alone has ~900 keys), so past
``METRICS_LISTED`` changes the report gives the changed keys per file and the largest changes, and
``almanac diff --metrics all`` the full list.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from almanac.core.metrics import is_timing_key
from almanac.reports.markdown import markdown_table
from almanac.reports.revisions import ValueChange


def short_text(value: Any, limit: int = 80) -> str:
    """One line for a Markdown cell: strings as they are, other values as JSON, cut at ``limit``."""
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cell_value(value: Any, absent: str = "(absent)") -> Any:
    if value is None:
        return absent
    if value == "":
        return '""'
    return value if isinstance(value, int | float) and not isinstance(value, bool) else short_text(value)


def shown_metrics(metrics: Sequence[ValueChange], timings: bool) -> list[ValueChange]:
    """The metric changes to list: without ``timings``, none of the wall-clock ``seconds`` keys.

    Metrics hold no time since timings moved to the untracked ``metrics/timings/``; revisions from before
    still carry ``seconds`` (and ``<role>.seconds`` of LLM stages), so against them every such key differs
    (or is only in the old version). They are read as any key, and folded into one line unless asked for.
    """
    return [change for change in metrics if timings or not is_timing_key(change.key)]


# The metric section lists every change when this many or fewer differ; past it, a summary of at most
# ~30 lines (changed keys per file, then the largest changes) and `--metrics all` for the full list.
METRICS_LISTED = 20
SUMMARY_FILES = 5
SUMMARY_CHANGES = 8


def metrics_section(metrics: Sequence[ValueChange], timings: bool, metrics_all: bool = False) -> list[str]:
    shown = shown_metrics(metrics, timings)
    skipped = len(metrics) - len(shown)
    listed = metrics_all or len(shown) <= METRICS_LISTED
    lines = _metrics_listed(shown) if listed else _metrics_summary(shown)
    if skipped:
        lines.append(
            f"- {skipped} timing key(s) (`seconds`, written by revisions from before timings left the"
            " metrics) also differ; `almanac diff --timings` lists them."
        )
    return lines


def _by_path(metrics: Sequence[ValueChange]) -> dict[str, list[ValueChange]]:
    by_path: dict[str, list[ValueChange]] = {}
    for change in metrics:
        by_path.setdefault(change.path, []).append(change)
    return by_path


def _one_sided(changes: Sequence[ValueChange]) -> str | None:
    """ "new" or "old" when every change of a file is a key on that side only (a new stage or month)."""
    if all(c.old is None for c in changes):
        return "new"
    if all(c.new is None for c in changes):
        return "old"
    return None


def _change_row(change: ValueChange) -> list[Any]:
    return [
        change.path,
        change.key,
        cell_value(change.old),
        cell_value(change.new),
        cell_value(change.change, ""),
    ]


def _metrics_listed(metrics: Sequence[ValueChange]) -> list[str]:
    """Every change: one table row each, a file whose keys are all on one side as one line."""
    lines: list[str] = []
    rows: list[list[Any]] = []
    for path, changes in _by_path(metrics).items():
        side = _one_sided(changes)
        if side is not None:
            lines.append(f"- `{path}`: {len(changes)} key(s) only in the {side} version")
            continue
        rows.extend(
            [path, c.key, cell_value(c.old), cell_value(c.new), cell_value(c.change, "")] for c in changes
        )
    if rows:
        lines[:0] = [markdown_table(["file", "key", "old", "new", "change"], rows), ""]
    if not metrics:
        lines.append("No metric differs.")
    return lines


def relative_change(change: ValueChange) -> float:
    """How large a change is, for ranking: |new - old| / max(|old|, 1); a key on one side only ranks as 1."""
    old, new = change.old, change.new
    numbers = all(isinstance(v, int | float) and not isinstance(v, bool) for v in (old, new))
    if not numbers:
        return 1.0
    return float(abs(new - old)) / max(abs(float(old)), 1.0)


def _rank(change: ValueChange) -> tuple[bool, float, str, str]:
    """The style summaries (what `dvc metrics show` prints) first, then the largest relative change."""
    return (not change.path.endswith("/summary.json"), -relative_change(change), change.path, change.key)


def _key_groups(changes: Sequence[ValueChange], limit: int = 3) -> str:
    """The first segments of the changed keys, most frequent first: ``balance 280, funnel 5``."""
    groups = Counter(change.key.split(".", 1)[0] for change in changes)
    ranked = sorted(groups.items(), key=lambda item: (-item[1], item[0]))
    text = ", ".join(f"`{group}` {count}" for group, count in ranked[:limit])
    return text + (f", {len(ranked) - limit} more" if len(ranked) > limit else "")


def _metrics_summary(metrics: Sequence[ValueChange]) -> list[str]:
    """Changed keys per file (most first) and the largest changes: about 30 lines however many differ."""
    by_path = sorted(_by_path(metrics).items(), key=lambda item: (-len(item[1]), item[0]))
    file_rows = []
    for path, changes in by_path[:SUMMARY_FILES]:
        side = _one_sided(changes)
        keys = f"{len(changes)}" + (f" (only in the {side} version)" if side else "")
        file_rows.append([path, keys, _key_groups(changes)])
    lines = [
        f"{len(metrics)} metric(s) differ in {len(by_path)} file(s); `almanac diff --metrics all` lists"
        " every one.",
        "",
        markdown_table(["file", "keys that differ", "mostly under"], file_rows),
    ]
    if len(by_path) > SUMMARY_FILES:
        rest = sum(len(changes) for _, changes in by_path[SUMMARY_FILES:])
        lines.append(f"\n… and {len(by_path) - SUMMARY_FILES} more file(s) with {rest} key(s).")
    both = [c for c in metrics if c.old is not None and c.new is not None]
    largest = sorted(both, key=_rank)[:SUMMARY_CHANGES]
    if largest:
        rows = [
            [c.path, c.key, cell_value(c.old), cell_value(c.new), cell_value(c.change, "")] for c in largest
        ]
        lines += ["", "Largest changes (the style summaries first, then relative to the old value):", ""]
        lines.append(markdown_table(["file", "key", "old", "new", "change"], rows))
    return lines
