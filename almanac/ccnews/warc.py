"""Read ``response`` records from (per-record gzipped) WARC/1.0 and WARC/1.1 files with warcio.

warcio is lenient by design: a garbage HTTP status line parses, and a truncated last gzip member
yields a short payload without an error. Both would turn into junk articles, so this reader checks
them explicitly and reports each as an :class:`Unreadable` item with its byte offset.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecord

from almanac.ccnews.records import RawPage, ReaderItem, Skipped, Unreadable

_STATUS_CODE = re.compile(r"^\d{3}$")
_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)


def read_warc(path: Path, label: str) -> Iterator[ReaderItem]:
    """Yield one item per WARC record; ``label`` names the file in source locations."""
    offset = 0
    seen_any = False
    with open(path, "rb") as stream:
        iterator = ArchiveIterator(stream, arc2warc=False)
        try:
            for record in iterator:
                seen_any = True
                item = _read_record(record)
                # Only valid once the record is consumed: warcio reads to the record's end to find it.
                offset = iterator.get_record_offset()
                yield _locate(item, label, offset)
        except ArchiveLoadFailed as error:
            reason = "not_a_warc" if not seen_any else "corrupt_record"
            yield Unreadable(reason, _first_line(error), f"{label}:{offset}")
            return
        except (EOFError, OSError, ValueError) as error:
            # zlib/gzip errors surface as OSError/EOFError mid-file: keep what came before.
            yield Unreadable("truncated_file", f"{type(error).__name__}: {error}", f"{label}:{offset}")
            return
    if not seen_any:
        size = path.stat().st_size
        reason = "empty_file" if size == 0 else "not_a_warc"
        yield Unreadable(reason, f"no WARC record in {size} bytes", f"{label}:0")


def _locate(item: ReaderItem, label: str, offset: int) -> ReaderItem:
    if isinstance(item, RawPage):
        return replace(item, source=f"{label}:{offset}", offset=offset)
    if isinstance(item, Unreadable):
        return replace(item, source=f"{label}:{offset}")
    return item


def _read_record(record: ArcWarcRecord) -> ReaderItem:
    """Classify and read one record; the caller fills in its location."""
    source = ""
    if record.rec_type != "response":
        record.content_stream().read()  # drain so the iterator can move on
        return Skipped(record.rec_type or "unknown")
    url = record.rec_headers.get_header("WARC-Target-URI") or ""
    http = record.http_headers
    if http is None or not str(http.protocol).upper().startswith("HTTP/"):
        record.raw_stream.read()
        statusline = "" if http is None else f"{http.protocol} {http.statusline}"
        return Unreadable("broken_http_header", f"status line not HTTP: {statusline[:80]!r}", source)
    status = http.get_statuscode()
    if not _STATUS_CODE.match(status or ""):
        record.raw_stream.read()
        return Unreadable("broken_http_header", f"no 3-digit status code in {http.statusline[:80]!r}", source)
    try:
        payload = record.content_stream().read()
    except Exception as error:  # warcio decoders raise zlib/brotli/chunked errors of many types
        return Unreadable("unreadable_payload", f"{type(error).__name__}: {error}", source)
    missing = getattr(record.raw_stream, "limit", 0)
    if missing:
        return Unreadable(
            "truncated_record", f"record ends {missing} bytes before its Content-Length", source
        )
    if status != "200":
        return Unreadable("http_status", f"HTTP status {status}", source)
    content_type = http.get_header("Content-Type") or ""
    if content_type and "html" not in content_type.lower():
        return Unreadable("not_html", f"Content-Type {content_type[:80]!r}", source)
    charset_match = _CHARSET.search(content_type)
    return RawPage(
        url=url,
        html=payload,
        charset=charset_match.group(1).lower() if charset_match else None,
        crawl_date=_parse_warc_date(record.rec_headers.get_header("WARC-Date")),
        source=source,
        offset=-1,
    )


def _parse_warc_date(value: str | None) -> datetime | None:
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0][:200] if str(error) else type(error).__name__
