"""Question-level comparison of two versions of the released splits, with the params and metrics that differ.

Rows are matched by each style's stable content-hash id per (config, split): an id only in the new version
is added, only in the old one removed, in both with some differing field changed. Fields are compared as
Python values on the columns both versions have; columns present in only one version are listed per table.
"""

from __future__ import annotations

import math
import sys
from collections import Counter
from collections.abc import Sequence
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa
from tqdm import tqdm

from almanac.reports.diff_metrics import cell_value, metrics_section, short_text, shown_metrics
from almanac.reports.markdown import markdown_table
from almanac.reports.revisions import RevisionReader, ValueChange, params_and_metrics
from almanac.reports.styles import STYLES, DatasetStyle, TableKey, get_style

# A short human-readable field shown next to each example id, first one present wins.
LABEL_COLUMNS = ("question_title", "question", "query", "ce_title", "target")


@dataclass(frozen=True)
class RowExample:
    id: str
    label: str
    fields: tuple[str, ...] = ()  # changed rows: the fields that differ


@dataclass(frozen=True)
class TableDiff:
    style: str
    config: str
    split: str
    id_column: str
    rows_a: int
    rows_b: int
    added: int
    removed: int
    changed: int
    unchanged: int
    columns_added: tuple[str, ...] = ()
    columns_removed: tuple[str, ...] = ()
    field_changes: tuple[tuple[str, int], ...] = ()  # (field, rows where it differs), by field name
    added_examples: tuple[RowExample, ...] = ()
    removed_examples: tuple[RowExample, ...] = ()
    changed_examples: tuple[RowExample, ...] = ()
    duplicates_a: int = 0  # rows whose id repeats an earlier row's (only the first is compared)
    duplicates_b: int = 0

    @property
    def differs(self) -> bool:
        return bool(self.added or self.removed or self.changed or self.columns_added or self.columns_removed)


@dataclass(frozen=True)
class VersionDiff:
    rev_a: str
    rev_b: str
    commit_a: str  # "workspace" for the working tree
    commit_b: str
    tables: tuple[TableDiff, ...]
    params: tuple[ValueChange, ...]
    metrics: tuple[ValueChange, ...]
    notes: tuple[str, ...] = ()


def same_value(a: Any, b: Any) -> bool:
    """Equality of Arrow-decoded values where NaN equals NaN, also inside lists and structs."""
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return bool(a == b)


def _rows_by_id(table: pa.Table | None, id_column: str, where: str) -> tuple[dict[str, dict[str, Any]], int]:
    if table is None:
        return {}, 0
    if id_column not in table.column_names:
        raise ValueError(f"{where} has no id column {id_column!r}")
    rows: dict[str, dict[str, Any]] = {}
    duplicates = 0
    for row in table.to_pylist():
        key = str(row[id_column])
        if key in rows:
            duplicates += 1
        else:
            rows[key] = row
    return rows, duplicates


def _label(row: dict[str, Any]) -> str:
    for column in LABEL_COLUMNS:
        value = row.get(column)
        if isinstance(value, str) and value.strip():
            return short_text(value, 100)
    return ""


def compare_tables(
    style: DatasetStyle,
    key: TableKey,
    table_a: pa.Table | None,
    table_b: pa.Table | None,
    max_examples: int = 20,
) -> TableDiff:
    """The diff of one (config, split) table between two versions; None: the table is absent there."""
    where = f"{style.name} {key.config}/{key.split}"
    rows_a, duplicates_a = _rows_by_id(table_a, style.id_column, f"{where} (old version)")
    rows_b, duplicates_b = _rows_by_id(table_b, style.id_column, f"{where} (new version)")
    columns_a = table_a.column_names if table_a is not None else []
    columns_b = table_b.column_names if table_b is not None else []
    if table_a is None or table_b is None:
        columns_added: tuple[str, ...] = ()
        columns_removed: tuple[str, ...] = ()
    else:
        columns_added = tuple(sorted(set(columns_b) - set(columns_a)))
        columns_removed = tuple(sorted(set(columns_a) - set(columns_b)))
    common = sorted(set(columns_a) & set(columns_b))
    added = sorted(set(rows_b) - set(rows_a))
    removed = sorted(set(rows_a) - set(rows_b))
    changed: list[RowExample] = []
    field_counts: Counter[str] = Counter()
    for row_id in sorted(set(rows_a) & set(rows_b)):
        old, new = rows_a[row_id], rows_b[row_id]
        fields = tuple(column for column in common if not same_value(old[column], new[column]))
        if fields:
            field_counts.update(fields)
            changed.append(RowExample(row_id, _label(new), fields))
    return TableDiff(
        style=style.name,
        config=key.config,
        split=key.split,
        id_column=style.id_column,
        rows_a=table_a.num_rows if table_a is not None else 0,
        rows_b=table_b.num_rows if table_b is not None else 0,
        added=len(added),
        removed=len(removed),
        changed=len(changed),
        unchanged=len(set(rows_a) & set(rows_b)) - len(changed),
        columns_added=columns_added,
        columns_removed=columns_removed,
        field_changes=tuple(sorted(field_counts.items())),
        added_examples=tuple(RowExample(i, _label(rows_b[i])) for i in added[:max_examples]),
        removed_examples=tuple(RowExample(i, _label(rows_a[i])) for i in removed[:max_examples]),
        changed_examples=tuple(changed[:max_examples]),
        duplicates_a=duplicates_a,
        duplicates_b=duplicates_b,
    )


def diff_versions(
    repo: Path,
    rev_a: str,
    rev_b: str,
    styles: Sequence[str] | None = None,
    splits: Sequence[str] | None = None,
    build_missing: bool = False,
    max_examples: int = 3,
) -> VersionDiff:
    """Compare the released tables, params and metrics of ``rev_a`` (old) and ``rev_b`` (new).

    Revisions are anything git resolves, or ``workspace``. Raises MissingDataError when a revision's data
    is not in the DVC cache, unless ``build_missing`` rebuilds it in a temporary worktree.
    """
    repo = repo.resolve()
    chosen = [get_style(name) for name in (styles or list(STYLES))]
    tables: list[TableDiff] = []
    notes: list[str] = []
    matched_splits: set[str] = set()
    with ExitStack() as stack:
        readers = [RevisionReader(repo, rev, build_missing, stack) for rev in (rev_a, rev_b)]
        for style in tqdm(chosen, desc="diff", unit="style", file=sys.stderr, disable=None):
            before, after = (reader.tables(style) for reader in readers)
            absent = [f"`{rev}`" for rev, found in ((rev_a, before), (rev_b, after)) if not found]
            if absent:
                notes.append(f"{style.name}: no released table at {' or '.join(absent)}.")
            for key in sorted(set(before) | set(after)):
                if splits is not None and key.split not in splits:
                    continue
                matched_splits.add(key.split)
                tables.append(compare_tables(style, key, before.get(key), after.get(key), max_examples))
        for reader in readers:
            notes.extend(reader.notes)
        commit_a, commit_b = (reader.commit for reader in readers)
    unknown = sorted(set(splits or ()) - matched_splits)
    if unknown:
        notes.append(f"No table has the split(s) {', '.join(unknown)}.")
    params, metrics, errors = params_and_metrics(repo, commit_a, commit_b)
    return VersionDiff(
        rev_a, rev_b, commit_a, commit_b, tuple(tables), params, metrics, tuple(notes + errors)
    )


def diff_report(
    repo: Path,
    rev_a: str,
    rev_b: str,
    styles: Sequence[str] | None = None,
    splits: Sequence[str] | None = None,
    build_missing: bool = False,
    max_examples: int = 3,
    timings: bool = False,
    metrics_all: bool = False,
) -> str:
    """The Markdown report of :func:`diff_versions`."""
    diff = diff_versions(repo, rev_a, rev_b, styles, splits, build_missing, max_examples)
    return render_markdown(diff, timings, metrics_all)


def _commit(commit: str) -> str:
    return commit if commit == "workspace" else commit[:10]


def _examples(title: str, total: int, examples: Sequence[RowExample], id_column: str) -> list[str]:
    if not total:
        return []
    changed = any(example.fields for example in examples)
    headers = [id_column, "example", *(["fields that differ"] if changed else [])]
    rows = [
        [example.id, example.label, *([", ".join(example.fields)] if changed else [])] for example in examples
    ]
    lines = [f"### {title} ({total})", "", markdown_table(headers, rows)]
    if total > len(examples):
        lines.append(f"\n… and {total - len(examples)} more.")
    return [*lines, ""]


def _table_section(table: TableDiff) -> list[str]:
    lines = [f"## {table.style} · {table.config}/{table.split}", ""]
    if table.columns_added:
        lines.append("- Columns added: " + ", ".join(f"`{c}`" for c in table.columns_added))
    if table.columns_removed:
        lines.append("- Columns removed: " + ", ".join(f"`{c}`" for c in table.columns_removed))
    if table.field_changes:
        lines.append("- Fields that differ: " + ", ".join(f"`{f}` ({n})" for f, n in table.field_changes))
    for side, count in (("old", table.duplicates_a), ("new", table.duplicates_b)):
        if count:
            lines.append(f"- {count} row(s) of the {side} version repeat an id; only the first was compared")
    if lines[-1]:
        lines.append("")
    lines += _examples("Added", table.added, table.added_examples, table.id_column)
    lines += _examples("Removed", table.removed, table.removed_examples, table.id_column)
    lines += _examples("Changed", table.changed, table.changed_examples, table.id_column)
    return lines


def _tables_section(tables: Sequence[TableDiff]) -> list[str]:
    """A row per table that differs; the unchanged ones in one line per style."""
    if not tables:
        return ["No released table at either revision."]
    headers = ["style", "config", "split", "rows (old)", "rows (new)", "added", "removed", "changed"]
    differ = [t for t in tables if t.differs or t.duplicates_a or t.duplicates_b]
    lines: list[str] = []
    if differ:
        rows = [
            [t.style, t.config, t.split, t.rows_a, t.rows_b, t.added, t.removed, t.changed, t.unchanged]
            for t in differ
        ]
        lines.append(markdown_table([*headers, "unchanged"], rows))
    else:
        lines.append("No released row differs.")
    same: dict[str, list[TableDiff]] = {}
    for table in tables:
        if table not in differ:
            same.setdefault(table.style, []).append(table)
    if same:
        lines.append("")
    for style, unchanged in same.items():
        names = ", ".join(f"{t.config}/{t.split}" for t in unchanged)
        rows_total = sum(t.rows_b for t in unchanged)
        listed = names if len(unchanged) <= 4 else f"{len(unchanged)} tables"
        lines.append(f"- {style}: {listed} unchanged ({rows_total} rows)")
    return lines


def render_markdown(diff: VersionDiff, timings: bool = False, metrics_all: bool = False) -> str:
    """A Markdown report: row changes per table (with examples), then params, then a metrics summary
    (every metric with ``metrics_all``)."""
    lines = [
        f"# Dataset diff: `{diff.rev_a}` → `{diff.rev_b}`",
        "",
        f"Commits `{_commit(diff.commit_a)}` → `{_commit(diff.commit_b)}`. Rows are matched by each style's "
        "stable id; fields are compared on the columns both versions have.",
        "",
        "## Released rows",
        "",
        *_tables_section(diff.tables),
        "",
    ]
    for table in diff.tables:
        if table.differs or table.duplicates_a or table.duplicates_b:
            lines += _table_section(table)
    lines += [f"## Params ({len(diff.params)} differ)", ""]
    if diff.params:
        rows = [[c.path, c.key, cell_value(c.old), cell_value(c.new)] for c in diff.params]
        lines.append(markdown_table(["file", "key", "old", "new"], rows))
    else:
        lines.append("No param differs.")
    listed = len(shown_metrics(diff.metrics, timings))
    lines += ["", f"## Metrics ({listed} differ)", "", *metrics_section(diff.metrics, timings, metrics_all)]
    lines.append("")
    if diff.notes:
        lines += ["## Notes", "", *(f"- {note}" for note in diff.notes), ""]
    return "\n".join(lines).rstrip("\n") + "\n"
