"""Read news-please JSONL (one article object per line), the format OpenForesight's pipeline consumes.

Lines are read as bytes and decoded strictly, so one bad line becomes one reject row instead of
an exception that would lose the rest of the file.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from almanac.ccnews.records import ParsedArticle, ReaderItem, Unreadable

REQUIRED_FIELDS = ("url", "maintext")


def read_newsplease(path: Path, label: str) -> Iterator[ReaderItem]:
    opener = gzip.open if path.name.endswith(".gz") else open
    line_number = 0
    with opener(path, "rb") as stream:
        try:
            for line_number, line in enumerate(stream, start=1):
                if line.strip():
                    yield _parse_line(line, f"{label}:{line_number}", line_number)
        except (EOFError, OSError) as error:
            yield Unreadable(
                "truncated_file", f"{type(error).__name__}: {error}", f"{label}:{line_number + 1}"
            )
            return
    if line_number == 0:
        yield Unreadable("empty_file", "no JSON lines", f"{label}:0")


def _parse_line(line: bytes, source: str, line_number: int) -> ReaderItem:
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
    missing = [name for name in REQUIRED_FIELDS if not isinstance(record.get(name), str) or not record[name]]
    if missing:
        return Unreadable("missing_field", f"missing or empty: {', '.join(missing)}", source)
    title = record.get("title")
    try:
        publish_date = _parse_date(record.get("date_publish"))
        crawl_date = _parse_date(record.get("date_download"))
    except ValueError as error:
        return Unreadable("bad_date", str(error), source)
    return ParsedArticle(
        url=record["url"],
        title=title if isinstance(title, str) else None,
        text=record["maintext"],
        publish_date=publish_date,
        crawl_date=crawl_date,
        source=source,
        offset=line_number,
    )


def _parse_date(value: Any) -> datetime | None:
    """news-please writes ``YYYY-MM-DD HH:MM:SS`` (naive, taken as UTC); also accept ISO 8601."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"date is not a string: {value!r}")
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError as error:
        raise ValueError(f"unparseable date {value!r}") from error
    return parsed.astimezone(UTC) if parsed.tzinfo else parsed.replace(tzinfo=UTC)
