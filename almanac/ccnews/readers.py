"""The reader table of the CC-News ingest: which reader reads which raw file. A new input format is one
reader module (see newsplease.py) plus one entry here.

A file goes to the first entry one of whose suffixes ends its name, so a specific suffix
(``.xyz.jsonl``) must come before a general one (``.jsonl``). An entry's ``kind`` is written on every
article it yields (``source_format``), so it names the format, not the reader's module.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from almanac.ccnews.newsplease import read_newsplease
from almanac.ccnews.records import ReaderItem, Unreadable
from almanac.ccnews.warc import WarcLimits, read_warc
from almanac.core.raw_input import non_regular_kind

ReadFile = Callable[[Path, str, WarcLimits], Iterator[ReaderItem]]
UNKNOWN_KIND: Final = "unknown"


@dataclass(frozen=True)
class Reader:
    kind: str  # the row's source_format
    suffixes: tuple[str, ...]  # file name endings, compared as written (case-sensitive)
    read: ReadFile  # (path, label for source locations, WARC limits) -> items; never raises for bad content


def without_limits(read: Callable[[Path, str], Iterator[ReaderItem]]) -> ReadFile:
    """A reader that takes no size limits (for a format whose records cannot be large)."""
    return lambda path, label, _limits: read(path, label)


READERS: Final = (
    Reader("warc", (".warc.gz", ".warc"), read_warc),
    Reader(
        "newsplease_jsonl",
        (".jsonl", ".jsonl.gz"),
        lambda path, label, limits: read_newsplease(
            path, label, limits.max_line_bytes, limits.max_field_bytes
        ),
    ),
)


def reader_kind(name: str, readers: tuple[Reader, ...] = READERS) -> str:
    """The kind of the first reader whose suffix ends ``name``; ``UNKNOWN_KIND`` when none does."""
    return next((reader.kind for reader in readers if name.endswith(reader.suffixes)), UNKNOWN_KIND)


def read_file(path: Path, label: str, kind: str, limits: WarcLimits) -> Iterator[ReaderItem]:
    """The items of a file of reader ``kind``; a file no reader takes is one ``unknown_file_type`` item,
    and one that is not a regular file (a FIFO, a device) one ``not_a_regular_file`` item, never opened."""
    special = non_regular_kind(path)
    if special is not None:
        yield Unreadable("not_a_regular_file", f"{special}, not a regular file: not opened", f"{label}:0")
        return
    reader = next((reader for reader in READERS if reader.kind == kind), None)
    if reader is None:
        expected = ", ".join(suffix for reader in READERS for suffix in reader.suffixes)
        yield Unreadable("unknown_file_type", f"expected one of {expected}", f"{label}:0")
        return
    yield from reader.read(path, label, limits)
