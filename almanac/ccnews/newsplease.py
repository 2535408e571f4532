"""Read news-please JSONL (one article object per line), the format OpenForesight's pipeline consumes.

Lines are read as bytes and decoded strictly, so one bad line becomes one reject row instead of
an exception that would lose the rest of the file.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from almanac.ccnews.dates import DateFinding, parse_date_value
from almanac.ccnews.jsonl import read_json_objects
from almanac.ccnews.records import ParsedArticle, ReaderItem, Unreadable

REQUIRED_FIELDS = ("url", "maintext")


def read_newsplease(path: Path, label: str) -> Iterator[ReaderItem]:
    for line in read_json_objects(path, label):
        yield (
            line if isinstance(line, Unreadable) else _to_article(line.record, line.source, line.line_number)
        )


def _to_article(record: dict[str, Any], source: str, line_number: int) -> ReaderItem:
    missing = [name for name in REQUIRED_FIELDS if not isinstance(record.get(name), str) or not record[name]]
    if missing:
        return Unreadable("missing_field", f"missing or empty: {', '.join(missing)}", source)
    title = record.get("title")
    try:
        date = _publish_date(record.get("date_publish"))
        crawl_date = _parse_date(record.get("date_download"))
    except ValueError as error:
        return Unreadable("bad_date", str(error), source)
    return ParsedArticle(
        url=record["url"],
        title=title if isinstance(title, str) else None,
        text=record["maintext"],
        date=date,
        crawl_date=crawl_date,
        source=source,
        offset=line_number,
    )


def _publish_date(value: Any) -> DateFinding:
    """A day from ``date_publish``; a year or month alone is kept as "no day", not as the 1st."""
    if value is None or value == "":
        return DateFinding()
    if not isinstance(value, str):
        raise ValueError(f"date is not a string: {value!r}")
    day, precision = parse_date_value(value, keep_time=True)
    if day is not None:
        return DateFinding(day, "feed")
    if precision is not None:
        return DateFinding(partial_sources=("feed",))
    raise ValueError(f"unparseable date {value!r}")


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
