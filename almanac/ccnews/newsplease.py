"""Read news-please JSONL (one article object per line), the format OpenForesight's pipeline consumes.

Lines are read as bytes and decoded strictly, so one bad line becomes one reject row instead of
an exception that would lose the rest of the file. Sizes are capped: a line over ``max_line_bytes`` is
never held whole (:mod:`almanac.ccnews.jsonl`), and a line with a text field over ``max_field_bytes``
(UTF-8 bytes) is rejected ``field_too_large`` naming the field.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from almanac.ccnews.dates import DateFinding, parse_date_value
from almanac.ccnews.jsonl import DEFAULT_MAX_LINE_BYTES, read_json_objects
from almanac.ccnews.records import ParsedArticle, ReaderItem, Unreadable
from almanac.core.record_errors import RECORD_ERROR, describe_error, reraise_infrastructure

REQUIRED_FIELDS = ("url", "maintext")
DEFAULT_MAX_FIELD_BYTES: Final = 5_000_000  # maintext of the longest real article is a few hundred KB


def read_newsplease(
    path: Path,
    label: str,
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
    max_field_bytes: int = DEFAULT_MAX_FIELD_BYTES,
) -> Iterator[ReaderItem]:
    for line in read_json_objects(path, label, max_line_bytes):
        if isinstance(line, Unreadable):
            yield line
            continue
        try:
            yield _to_article(line.record, line.source, line.line_number, max_field_bytes)
        except Exception as error:  # whatever one line raises is that line's reject (record_errors)
            reraise_infrastructure(error)
            yield Unreadable(RECORD_ERROR, describe_error(error), line.source)


def _to_article(record: dict[str, Any], source: str, line_number: int, max_field_bytes: int) -> ReaderItem:
    oversized = _oversized_field(record, max_field_bytes)
    if oversized is not None:
        return Unreadable("field_too_large", oversized, source)
    missing = [name for name in REQUIRED_FIELDS if not isinstance(record.get(name), str) or not record[name]]
    if missing:
        return Unreadable("missing_field", f"missing or empty: {', '.join(missing)}", source)
    title = record.get("title")
    try:
        date = _publish_date(record.get("date_publish"))
        crawl_date = _parse_date(record.get("date_download"))
    except ValueError as error:
        return Unreadable("bad_date", str(error), source)
    except OverflowError as error:  # a time zone offset moves the date past year 9999
        return Unreadable("bad_date", describe_error(error), source)
    return ParsedArticle(
        url=record["url"],
        title=title if isinstance(title, str) else None,
        text=record["maintext"],
        date=date,
        crawl_date=crawl_date,
        source=source,
        offset=line_number,
    )


def _oversized_field(record: dict[str, Any], max_field_bytes: int) -> str | None:
    """Why a top-level text field is over the cap (its name and UTF-8 size), or None."""
    for name, value in record.items():
        # A str's UTF-8 size is at most 4 bytes per character: only a long one is encoded to be measured.
        if isinstance(value, str) and len(value) * 4 > max_field_bytes:
            size = len(value.encode("utf-8", "surrogatepass"))
            if size > max_field_bytes:
                return f"field {name[:60]!r} of {size} bytes > max_field_bytes {max_field_bytes}"
    return None


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
