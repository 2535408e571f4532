"""GDELT ingest: the raw export and mentions files of one month -> typed tables + a ledger of rejects.

Per file: the bytes (``reader.py``), then the fast path (``columns.py``: pyarrow.csv and Arrow kernels)
for every row it can prove valid, and the row path (``values.py``) for the rest, which maps GDELT 1.0
rows, and rejects wrong field counts and bad values with their line numbers while the rest of the file
loads. One work item per file, so Ray spreads a month's files over the workers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step, keep_whole
from almanac.gdelt.columns import read_fast
from almanac.gdelt.reader import DEFAULT_MAX_BYTES, FileRejected, read_file_bytes
from almanac.gdelt.schema import (
    EXPORT_FIELDS_V1,
    EXPORT_FIELDS_V2,
    EXPORT_SCHEMA,
    MENTIONS_FIELDS,
    MENTIONS_SCHEMA,
)
from almanac.gdelt.values import (
    EXPORT_FIELDS_HISTORICAL,
    BadValue,
    WrongShape,
    parse_row,
    rows_to_table,
    split_line,
)

STAGE = "gdelt_ingest"
IGNORED_NAMES = frozenset({"MANIFEST.json", "README.md"})
_EXCERPT_CHARS = 160
_BACKFILE_ZIP = re.compile(r"^\d{4}(?:\d{2})?\.zip$")
_LINE = "__line"  # temporary column: rows of both paths are put back in file order by it


@dataclass(frozen=True)
class GdeltIngestConfig:
    max_member_bytes: int = DEFAULT_MAX_BYTES  # a file whose CSV is larger is rejected member_too_large


@dataclass(frozen=True)
class FileTask:
    path: str
    label: str  # the file's name: rows' ``source`` is "<label>:<line>", stable across clones
    kind: str  # "export" | "mentions" | "unknown"
    max_member_bytes: int = DEFAULT_MAX_BYTES


@dataclass
class FileResult:
    events: pa.Table
    mentions: pa.Table
    ledger: StageLedger


def file_kind(name: str) -> str:
    lower = name.lower()
    if lower.endswith((".mentions.csv", ".mentions.csv.zip")):
        return "mentions"
    if ".gkg." in lower or ".translation." in lower:
        return "unknown"  # other GDELT products: not event rows
    if lower.endswith((".csv", ".csv.zip")):
        return "export"  # <stamp>.export.CSV(.zip) and GDELT 1.0's YYYYMMDD.export.CSV.zip
    if _BACKFILE_ZIP.match(lower):
        return "export"  # GDELT 1.0 backfiles: YYYY.zip (1979-2005) and YYYYMM.zip (2006 to March 2013)
    return "unknown"


def discover_files(month_dir: Path, max_member_bytes: int = DEFAULT_MAX_BYTES) -> list[FileTask]:
    if not month_dir.is_dir():
        raise FileNotFoundError(f"no GDELT raw directory {month_dir} (run gdelt_download first)")
    tasks = []
    for path in sorted(p for p in month_dir.iterdir() if not p.is_dir()):
        if path.name.startswith(".") or path.name in IGNORED_NAMES or path.name.endswith(".part"):
            continue
        tasks.append(FileTask(str(path), path.name, file_kind(path.name), max_member_bytes))
    return tasks


def ingest_file(task: FileTask, fast: bool = True) -> FileResult:
    """Typed rows of one file. Bad lines and unreadable files become rejects; nothing raises for content.

    ``fast=False`` reads every line by the row path (the reference the fast path is tested against).
    """
    ledger = StageLedger(STAGE)
    schema = EXPORT_SCHEMA if task.kind == "export" else MENTIONS_SCHEMA
    if task.kind == "unknown":
        return _file_rejected(ledger, task, "unknown_file_type", "not a GDELT export or mentions file name")
    try:
        data = read_file_bytes(Path(task.path), task.max_member_bytes)
    except FileRejected as error:
        return _file_rejected(ledger, task, error.reason, error.detail)
    lines = data.splitlines()  # \n, \r\n and \r, as pyarrow.csv splits them
    nonblank = [number for number, line in enumerate(lines, start=1) if line]
    names, version = _layout(task.kind, lines[nonblank[0] - 1] if nonblank else b"")
    quick = read_fast(data, lines, names, schema, nonblank) if fast and nonblank else None
    parts = []
    if quick is None:
        if fast and nonblank:  # Arrow could not split it (e.g. a short row with non-UTF-8 bytes)
            ledger.count("files_read_by_rows", task.kind)
        row_lines = nonblank
    else:
        parts.append(_with_provenance(quick.table, quick.lines, task, version))
        keep_whole(ledger, quick.table.num_rows)  # every line Arrow typed is kept
        if quick.invalid_utf8_rows:
            ledger.count("invalid_utf8_lines", task.kind, quick.invalid_utf8_rows)
        if version is not None:
            ledger.count("rows_by_version", version, quick.table.num_rows)
        row_lines = quick.row_path_lines
    if row_lines:
        parts.append(_read_rows(lines, row_lines, task, schema, ledger))
    table = (
        pa.concat_tables(parts)
        if parts
        else schema.empty_table().append_column(_LINE, pa.array([], pa.int64()))
    )
    if row_lines and len(parts) > 1:  # both paths gave rows: back into file order
        table = table.sort_by(_LINE)
    table = table.drop_columns([_LINE])
    ledger.count("files_by_kind", task.kind)
    ledger.count("rows_by_kind", task.kind, table.num_rows)
    empty_events, empty_mentions = EXPORT_SCHEMA.empty_table(), MENTIONS_SCHEMA.empty_table()
    if task.kind == "export":
        return FileResult(table, empty_mentions, ledger)
    return FileResult(empty_events, table, ledger)


def _layout(kind: str, first_line: bytes) -> tuple[Sequence[str], str | None]:
    """Column names the fast path reads the file with, judged by its first line, and the version."""
    if kind == "mentions":
        return MENTIONS_FIELDS, None
    fields = first_line.count(b"\t") + 1
    if fields == len(EXPORT_FIELDS_V1):
        return EXPORT_FIELDS_V1, "1.0"
    if fields == len(EXPORT_FIELDS_HISTORICAL):
        return EXPORT_FIELDS_HISTORICAL, "1.0"
    return EXPORT_FIELDS_V2, "2.0"


def _with_provenance(typed: pa.Table, lines: list[int], task: FileTask, version: str | None) -> pa.Table:
    schema = EXPORT_SCHEMA if version is not None else MENTIONS_SCHEMA
    columns: dict[str, Any] = {}
    for field in schema:
        if field.name in typed.column_names:
            columns[field.name] = typed.column(field.name)
        elif field.name == "gdelt_version":
            columns[field.name] = pa.array([version] * typed.num_rows, pa.string())
        elif field.name == "source":
            columns[field.name] = pa.array([f"{task.label}:{line}" for line in lines], pa.string())
        else:  # the ADM2 codes GDELT 1.0 does not have, and a backfile's SOURCEURL
            columns[field.name] = pa.nulls(typed.num_rows, field.type)
    table = pa.Table.from_pydict(columns, schema=schema)
    return table.append_column(_LINE, pa.array(lines, pa.int64()))


def _read_rows(
    lines: list[bytes], numbers: list[int], task: FileTask, schema: pa.Schema, ledger: StageLedger
) -> pa.Table:
    """The row path for the given line numbers: typed rows, or rejects with the reason."""

    def typed(number: int) -> tuple[int, list[Any]] | Drop:
        fields, invalid_utf8 = split_line(lines[number - 1])
        try:
            values, version = parse_row(fields, task.kind)
        except (WrongShape, BadValue) as error:
            reason = error.reason if isinstance(error, WrongShape) else "bad_value"
            line = "\t".join(fields)
            excerpt = line if len(line) <= _EXCERPT_CHARS else line[:_EXCERPT_CHARS] + "..."
            return Drop(reason, f"{error} | line: {excerpt!r}")
        if invalid_utf8:
            ledger.count("invalid_utf8_lines", task.kind)
        if version is not None:
            values.append(version)
            ledger.count("rows_by_version", version)
        values.append(_line_source(task, number))
        return number, values

    step = Step(
        typed, lambda number: content_id(STAGE, _line_source(task, number)), partial(_line_source, task)
    )
    kept = apply_step(numbers, step, ledger)
    rows = [values for _, values in kept]
    return rows_to_table(rows, schema).append_column(_LINE, pa.array([n for n, _ in kept], pa.int64()))


def _line_source(task: FileTask, number: int) -> str:
    return f"{task.label}:{number}"


def _file_rejected(ledger: StageLedger, task: FileTask, reason: str, detail: str) -> FileResult:
    # The file is the item: how many rows it held is unknowable.
    ledger.count("files_rejected", reason)
    apply_step([task.label], Step(lambda _label: Drop(reason, detail), _file_id, str), ledger)
    return FileResult(EXPORT_SCHEMA.empty_table(), MENTIONS_SCHEMA.empty_table(), ledger)


def _file_id(label: str) -> str:
    return content_id(STAGE, label)


def combine(results: Sequence[FileResult], **extra: Any) -> FileResult:
    """One month: every file's tables concatenated and sorted by event id, ledgers merged."""
    ledger = StageLedger(STAGE, extra=dict(extra))
    for result in results:
        ledger.merge(result.ledger)
    events = pa.concat_tables([r.events for r in results] or [EXPORT_SCHEMA.empty_table()])
    mentions = pa.concat_tables([r.mentions for r in results] or [MENTIONS_SCHEMA.empty_table()])
    events = events.sort_by(
        [("GlobalEventID", "ascending"), ("DATEADDED", "ascending"), ("source", "ascending")]
    )
    mentions = mentions.sort_by(
        [("GlobalEventID", "ascending"), ("MentionTimeDate", "ascending"), ("source", "ascending")]
    )
    return FileResult(events.combine_chunks(), mentions.combine_chunks(), ledger)
