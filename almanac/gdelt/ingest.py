"""GDELT ingest: the raw export and mentions files of one month -> typed tables + a ledger of rejects.

Per file: its lines, streamed with a cap on each (``reader.py``), typed in chunks of ``chunk_bytes``:
the fast path (``columns.py``: pyarrow.csv and Arrow kernels) for every row it can prove valid, and the
row path (``values.py``) for the rest, which maps GDELT 1.0 rows, and rejects wrong field counts and
bad values with their line numbers while the rest of the file loads. A line over ``max_line_bytes`` is
rejected ``line_too_long`` unread, and whatever one line raises is that line's ``unreadable_line``.
One work item per file, so Ray spreads a month's files over the workers.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.bounded_lines import Line, LongLine
from almanac.core.ids import content_id
from almanac.core.record_errors import describe_error
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step, keep_whole
from almanac.gdelt.columns import FastRead, read_fast
from almanac.gdelt.reader import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINE_BYTES, FileRejected, read_lines
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
# Lines typed at once: Arrow and the row path take ~10x a chunk's bytes, so 8 MiB stays far under the
# memory a worker has, and a GDELT 2.0 15-minute export (a few MB) is one chunk.
DEFAULT_CHUNK_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class GdeltIngestConfig:
    max_member_bytes: int = DEFAULT_MAX_BYTES  # a file whose CSV is larger is rejected member_too_large
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES  # a longer line is rejected line_too_long, never held
    chunk_bytes: int = DEFAULT_CHUNK_BYTES  # lines typed together; bounds a worker's memory per file


@dataclass(frozen=True)
class FileTask:
    path: str
    label: str  # the file's name: rows' ``source`` is "<label>:<line>", stable across clones
    kind: str  # "export" | "mentions" | "unknown"
    max_member_bytes: int = DEFAULT_MAX_BYTES
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    chunk_bytes: int = DEFAULT_CHUNK_BYTES


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


def discover_files(
    month_dir: Path,
    max_member_bytes: int = DEFAULT_MAX_BYTES,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
) -> list[FileTask]:
    if not month_dir.is_dir():
        raise FileNotFoundError(f"no GDELT raw directory {month_dir} (run gdelt_download first)")
    tasks = []
    for path in sorted(p for p in month_dir.iterdir() if not p.is_dir()):
        if path.name.startswith(".") or path.name in IGNORED_NAMES or path.name.endswith(".part"):
            continue
        kind = file_kind(path.name)
        tasks.append(FileTask(str(path), path.name, kind, max_member_bytes, max_line_bytes, chunk_bytes))
    return tasks


def ingest_file(task: FileTask, fast: bool = True) -> FileResult:
    """Typed rows of one file. Bad lines and unreadable files become rejects; nothing raises for content.

    The file is streamed in chunks of about ``chunk_bytes`` of lines, each typed on its own (rows are
    typed value by value, so chunking changes no row); a line over ``max_line_bytes`` is rejected
    ``line_too_long`` with its size and never held. ``fast=False`` reads every line by the row path
    (the reference the fast path is tested against).
    """
    ledger = StageLedger(STAGE)
    if task.kind == "unknown":
        return _file_rejected(ledger, task, "unknown_file_type", "not a GDELT export or mentions file name")
    try:
        table = _read_chunks(task, ledger, fast)
    except FileRejected as error:  # rows read before the fault are dropped with the file
        return _file_rejected(StageLedger(STAGE), task, error.reason, error.detail)
    ledger.count("files_by_kind", task.kind)
    ledger.count("rows_by_kind", task.kind, table.num_rows)
    empty_events, empty_mentions = EXPORT_SCHEMA.empty_table(), MENTIONS_SCHEMA.empty_table()
    if task.kind == "export":
        return FileResult(table, empty_mentions, ledger)
    return FileResult(empty_events, table, ledger)


def _read_chunks(task: FileTask, ledger: StageLedger, fast: bool) -> pa.Table:
    schema = EXPORT_SCHEMA if task.kind == "export" else MENTIONS_SCHEMA
    layout: tuple[Sequence[str], str | None] | None = None
    parts: list[pa.Table] = []
    chunk: list[Line] = []
    chunk_size = 0
    read_by_rows = False
    for line in read_lines(Path(task.path), task.max_member_bytes, task.max_line_bytes):
        if isinstance(line, LongLine):
            _reject_long_line(line, task, ledger)
            continue
        if not line[1]:
            continue  # blank lines are not rows (and not items)
        if layout is None:  # judged by the first line, as GDELT writes one layout per file
            layout = _layout(task.kind, line[1])
        chunk.append(line)
        chunk_size += len(line[1]) + 1
        if chunk_size >= task.chunk_bytes:
            read_by_rows |= _read_chunk(chunk, layout, task, schema, ledger, fast, parts)
            chunk, chunk_size = [], 0
    if chunk and layout is not None:
        read_by_rows |= _read_chunk(chunk, layout, task, schema, ledger, fast, parts)
    if read_by_rows:  # Arrow could not split some chunk (e.g. a short row with non-UTF-8 bytes)
        ledger.count("files_read_by_rows", task.kind)
    table = pa.concat_tables(parts) if parts else schema.empty_table()
    return table.combine_chunks() if len(parts) > 1 else table


def _read_chunk(
    chunk: list[Line],
    layout: tuple[Sequence[str], str | None],
    task: FileTask,
    schema: pa.Schema,
    ledger: StageLedger,
    fast: bool,
    parts: list[pa.Table],
) -> bool:
    """Type one chunk of non-blank lines into ``parts``; True when Arrow could not split it."""
    names, version = layout
    lines = [data for _, data in chunk]
    numbers = [number for number, _ in chunk]
    quick = _read_fast_or_none(lines, names, schema, numbers) if fast else None
    pieces = []
    if quick is None:
        row_lines = numbers
    else:
        pieces.append(_with_provenance(quick.table, quick.lines, task, version))
        keep_whole(ledger, quick.table.num_rows)  # every line Arrow typed is kept
        if quick.invalid_utf8_rows:
            ledger.count("invalid_utf8_lines", task.kind, quick.invalid_utf8_rows)
        if version is not None:
            ledger.count("rows_by_version", version, quick.table.num_rows)
        row_lines = quick.row_path_lines
    if row_lines:
        by_number = dict(chunk)
        pieces.append(_read_rows(by_number, row_lines, task, schema, ledger))
    table = pa.concat_tables(pieces)
    if len(pieces) > 1:  # both paths gave rows: back into file order
        table = table.sort_by(_LINE)
    parts.append(table.drop_columns([_LINE]))
    return fast and quick is None


def _read_fast_or_none(
    lines: list[bytes], names: Sequence[str], schema: pa.Schema, numbers: list[int]
) -> FastRead | None:
    """The fast path's reading of a chunk; None sends every line of it to the row path, which judges
    each line on its own (so whatever Arrow raises costs speed, never a line)."""
    try:
        return read_fast(b"\n".join(lines) + b"\n", lines, names, schema, numbers)
    except Exception:  # an Arrow error the fast path did not foresee
        return None


def _reject_long_line(line: LongLine, task: FileTask, ledger: StageLedger) -> None:
    detail = f"{line.size} bytes > max_line_bytes {task.max_line_bytes}"
    step: Step[int, object] = Step(
        lambda _line: Drop("line_too_long", detail), _line_id(task), _line_source_of(task)
    )
    apply_step([line.number], step, ledger)


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
    lines: dict[int, bytes], numbers: list[int], task: FileTask, schema: pa.Schema, ledger: StageLedger
) -> pa.Table:
    """The row path for the given line numbers: typed rows, or rejects with the reason."""

    def typed(number: int) -> tuple[int, list[Any]] | Drop:
        fields, invalid_utf8 = split_line(lines[number])
        line = "\t".join(fields)
        excerpt = line if len(line) <= _EXCERPT_CHARS else line[:_EXCERPT_CHARS] + "..."
        try:
            values, version = parse_row(fields, task.kind)
        except (WrongShape, BadValue) as error:
            reason = error.reason if isinstance(error, WrongShape) else "bad_value"
            return Drop(reason, f"{error} | line: {excerpt!r}")
        except Exception as error:  # whatever one line raises is that line's reject
            return Drop("unreadable_line", f"{describe_error(error)} | line: {excerpt!r}")
        if invalid_utf8:
            ledger.count("invalid_utf8_lines", task.kind)
        if version is not None:
            values.append(version)
            ledger.count("rows_by_version", version)
        values.append(_line_source(task, number))
        return number, values

    step = Step(typed, _line_id(task), _line_source_of(task))
    kept = apply_step(numbers, step, ledger)
    rows = [values for _, values in kept]
    return rows_to_table(rows, schema).append_column(_LINE, pa.array([n for n, _ in kept], pa.int64()))


def _line_source(task: FileTask, number: int) -> str:
    return f"{task.label}:{number}"


def _line_source_of(task: FileTask) -> Callable[[int], str]:
    return partial(_line_source, task)


def _line_id(task: FileTask) -> Callable[[int], str]:
    return lambda number: content_id(STAGE, _line_source(task, number))


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
