"""Atomic, deterministic readers and writers for stage outputs.

Every write goes to a temporary file in the destination directory and is renamed into place, so a
killed stage never leaves a half-written file that a later stage (or DVC) would take as complete.

Temporary names start with :data:`TEMP_PREFIX`, which ``.dvcignore`` and ``.gitignore`` list: what a
killed write leaves inside a directory output does not make ``dvc status`` dirty, readers of a folder
skip it, and the next write of the same target removes it (see :func:`remove_leftovers`).
"""

from __future__ import annotations

import errno
import functools
import hashlib
import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

PARQUET_COMPRESSION = "zstd"
TEMP_PREFIX = ".tmp-almanac-"  # listed in .dvcignore and .gitignore; nothing else may start with it


@functools.cache
def _host_tag() -> str:
    """Short, dash-free tag of this machine: on a shared disk, a pid means something only on its host."""
    return hashlib.sha256(socket.gethostname().encode()).hexdigest()[:8]


def _temp_affixes(target: Path) -> tuple[str, str]:
    """``.tmp-almanac-<host>-<pid>-`` + mkstemp's random part (never a dash) + ``-<target name>``."""
    return f"{TEMP_PREFIX}{_host_tag()}-{os.getpid()}-", f"-{target.name}"


def _pid_running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    return True


def remove_leftovers(target: Path) -> list[Path]:
    """Delete temporaries of ``target`` that a killed writer left beside it; returns what was removed.

    Only names this module makes for exactly this target, from this host, whose process is gone: a
    concurrent writer's temporary is left alone. A symlink is unlinked itself, never followed.
    """
    removed: list[Path] = []
    try:
        entries = list(os.scandir(target.parent))
    except FileNotFoundError:
        return removed
    for entry in entries:
        if not entry.name.startswith(TEMP_PREFIX):
            continue
        parts = entry.name[len(TEMP_PREFIX) :].split("-", 3)
        if len(parts) != 4 or parts[0] != _host_tag() or parts[3] != target.name or not parts[1].isdigit():
            continue
        if _pid_running(int(parts[1])):
            continue
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path)
        else:
            os.unlink(entry.path)
        removed.append(Path(entry.path))
    return removed


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; rename it onto ``path`` only if the block succeeds."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(target)
    prefix, suffix = _temp_affixes(target)
    handle, temp_name = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=target.parent)
    os.close(handle)
    temp = Path(temp_name)
    try:
        yield temp
        os.replace(temp, target)
    except OSError as error:
        if error.errno in (errno.ENOSPC, errno.EDQUOT) and not error.filename:
            # A full disk says so without a path (a write or close fails): name the file being written.
            raise OSError(error.errno, error.strerror or os.strerror(error.errno), str(target)) from error
        raise
    finally:
        temp.unlink(missing_ok=True)


@contextmanager
def atomic_dir(directory: str | Path) -> Iterator[Path]:
    """A staging folder beside ``directory`` that replaces it as a whole when the block succeeds.

    Readers never see a mix of old and new files; on an error the old folder stays as it was.
    """
    target = Path(directory)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_leftovers(target)
    prefix, suffix = _temp_affixes(target)
    staging = Path(tempfile.mkdtemp(prefix=prefix, suffix=suffix, dir=target.parent))
    try:
        yield staging
        if target.exists():
            shutil.rmtree(target)
        os.replace(staging, target)
    finally:
        if staging.exists():
            shutil.rmtree(staging)


def write_parquet(table: pa.Table, path: str | Path) -> None:
    """Write one Parquet file atomically; same table and library versions give the same bytes."""
    with atomic_path(path) as temp:
        pq.write_table(table, temp, compression=PARQUET_COMPRESSION)


def read_parquet(
    path: str | Path, schema: pa.Schema | None = None, columns: list[str] | None = None
) -> pa.Table:
    """One Parquet file (or what ``pq.read_table`` reads at ``path``), cast to ``schema`` when given;
    ``columns``: only these, in this order."""
    table = _read_whole_file(path, schema, columns)
    if table is None:
        table = pq.read_table(path, schema=schema, columns=columns)
    return table if schema is None else table.cast(schema)


def _read_whole_file(
    path: str | Path, schema: pa.Schema | None, columns: list[str] | None
) -> pa.Table | None:
    """The file read straight through ``pq.ParquetFile`` where that gives exactly what ``pq.read_table``
    gives (one file of at most one row group, holding ``schema``'s fields and every column asked for;
    tested on every file of the sample: same values, schema, metadata and chunks), else None (errors
    included, so they stay read_table's). ``pq.read_table`` goes through ``pyarrow.dataset``, whose import
    is ~0.15 s of CPU in a stage process that otherwise never needs it."""
    if not Path(path).is_file():
        return None
    try:
        file = pq.ParquetFile(path)
    except (OSError, pa.ArrowException):
        return None  # not Parquet, unreadable: read_table says why, as before
    with file:
        found = file.schema_arrow
        if file.metadata.num_row_groups > 1:
            return None
        if schema is not None and not found.equals(schema, check_metadata=False):
            return None
        if columns is not None and not set(columns) <= set(found.names):
            return None
        return file.read(columns=columns)


def write_json(data: Any, path: str | Path) -> None:
    """Pretty, key-sorted JSON so that diffs between versions are readable."""
    write_text(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", path)


def write_text(text: str, path: str | Path) -> None:
    with atomic_path(path) as temp:
        temp.write_text(text, encoding="utf-8")


def read_json(path: str | Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def write_month_partitions(
    table: pa.Table, directory: str | Path, months: list[str] | None, column: str, keep_column: bool = True
) -> None:
    """Write ``<directory>/<month>.parquet`` per month, replacing the folder.

    With ``months`` given, every listed month gets a file even when it has no rows (so per-month
    downstream stages always find their input) and rows of other months are an error; with None,
    one file per month present; ``keep_column=False`` leaves the partition column out of the files.
    The folder is built beside the target and swapped in, so readers
    never see a mix of old and new partitions.
    """
    values = table.column(column).to_pylist()
    if months is None:
        months = sorted(set(values))
    unexpected = sorted(set(values) - set(months))
    if unexpected:
        raise ValueError(f"rows for months not in scope: {unexpected}")
    with atomic_dir(directory) as staging:
        for month in months:
            mask = pa.array([value == month for value in values], type=pa.bool_())
            part = table.filter(mask)
            write_parquet(part if keep_column else part.drop_columns([column]), staging / f"{month}.parquet")


def read_parquet_dir(directory: str | Path, schema: pa.Schema) -> pa.Table:
    """Concatenate every ``*.parquet`` below ``directory`` in sorted path order (temporaries skipped)."""
    root = Path(directory)
    paths = sorted(
        path
        for path in root.rglob("*.parquet")
        if not any(part.startswith(TEMP_PREFIX) for part in path.relative_to(root).parts)
    )
    tables = [read_parquet(path, schema) for path in paths]
    return pa.concat_tables(tables) if tables else schema.empty_table()
