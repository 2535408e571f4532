"""One JSON object per line, read as bytes: every bad line becomes an Unreadable item, not an exception.

Shared by the news-please and WCEP-MDS readers, which differ only in what they make of each object.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from almanac.ccnews.records import Unreadable


@dataclass(frozen=True)
class JsonLine:
    record: dict[str, Any]
    source: str  # "<label>:<line number>"
    line_number: int


def read_json_objects(path: Path, label: str) -> Iterator[JsonLine | Unreadable]:
    """Objects of a ``.jsonl`` (or ``.jsonl.gz``) file in order; blank lines are skipped."""
    opener = gzip.open if path.name.endswith(".gz") else open
    line_number = 0
    with opener(path, "rb") as stream:
        try:
            for line_number, line in enumerate(stream, start=1):
                if line.strip():
                    yield _parse(line, f"{label}:{line_number}", line_number)
        except (EOFError, OSError) as error:  # a cut or corrupt gzip stream: keep the lines before it
            yield Unreadable(
                "truncated_file", f"{type(error).__name__}: {error}", f"{label}:{line_number + 1}"
            )
            return
    if line_number == 0:
        yield Unreadable("empty_file", "no JSON lines", f"{label}:0")


def _parse(line: bytes, source: str, line_number: int) -> JsonLine | Unreadable:
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as error:
        return Unreadable("undecodable_payload", f"invalid UTF-8 at byte {error.start}", source)
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        return Unreadable("invalid_json", f"{error.msg} at column {error.colno}", source)
    if not isinstance(record, dict):
        return Unreadable("invalid_json", f"expected an object, got {type(record).__name__}", source)
    return JsonLine(record, source, line_number)
