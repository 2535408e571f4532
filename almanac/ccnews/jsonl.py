"""One JSON object per line, read as bytes: every bad line becomes an Unreadable item, not an exception.

Shared by the news-please and WCEP-MDS readers, which differ only in what they make of each object.

Lines are read in bounded chunks, never a whole line first: a line longer than ``max_line_bytes`` is
skipped to its newline without being kept (a 1.1 MB ``.jsonl.gz`` can hold a 1 GiB line) and rejected
``line_too_long`` with its size. Whatever parsing one line raises besides a JSON syntax error (a list
nested 100,000 deep: RecursionError; an integer of 100,000 digits: ValueError) is that line's
``record_error``.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from almanac.ccnews.records import Unreadable
from almanac.core.bounded_lines import LongLine, split_blocks
from almanac.core.record_errors import RECORD_ERROR, describe_error, reraise_infrastructure

# A news-please article is a few KB to a few hundred KB; 10 MB leaves room for any real one, and the
# objects Python builds from 10 MB of JSON stay far below the memory of a worker.
DEFAULT_MAX_LINE_BYTES: Final = 10_000_000
_CHUNK_BYTES: Final = 1 << 20


@dataclass(frozen=True)
class JsonLine:
    record: dict[str, Any]
    source: str  # "<label>:<line number>"
    line_number: int


class _Readable(Protocol):
    def read(self, size: int, /) -> bytes: ...


def read_json_objects(
    path: Path, label: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
) -> Iterator[JsonLine | Unreadable]:
    """Objects of a ``.jsonl`` (or ``.jsonl.gz``) file in order; blank lines are skipped."""
    opener = gzip.open if path.name.endswith(".gz") else open
    line_number = 0
    with opener(path, "rb") as stream:
        try:
            # Lines end at "\n" only, as a binary file's lines do; a "\r" before it is JSON whitespace.
            for line in split_blocks(_blocks(stream), max_line_bytes, universal=False):
                if isinstance(line, LongLine):
                    line_number = line.number
                    detail = f"line of {line.size} bytes > max_line_bytes {max_line_bytes}"
                    yield Unreadable("line_too_long", detail, f"{label}:{line_number}")
                    continue
                line_number, text = line
                if text.strip():
                    yield _parse(text, f"{label}:{line_number}", line_number)
        except (EOFError, OSError) as error:  # a cut or corrupt gzip stream: keep the lines before it
            yield Unreadable(
                "truncated_file", f"{type(error).__name__}: {error}", f"{label}:{line_number + 1}"
            )
            return
    if line_number == 0:
        yield Unreadable("empty_file", "no JSON lines", f"{label}:0")


def _blocks(stream: _Readable) -> Iterator[bytes]:
    while block := stream.read(_CHUNK_BYTES):
        yield block


def _parse(line: bytes, source: str, line_number: int) -> JsonLine | Unreadable:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        return Unreadable("undecodable_payload", f"invalid UTF-8 at byte {error.start}", source)
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        return Unreadable("invalid_json", f"{error.msg} at column {error.colno}", source)
    except Exception as error:  # RecursionError, ValueError (int digits limit): the line's, not the file's
        reraise_infrastructure(error)
        return Unreadable(RECORD_ERROR, describe_error(error), source)
    if not isinstance(record, dict):
        return Unreadable("invalid_json", f"expected an object, got {type(record).__name__}", source)
    return JsonLine(record, source, line_number)
