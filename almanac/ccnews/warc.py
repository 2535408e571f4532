"""Read ``response`` records from (per-record gzipped) WARC/1.0 and WARC/1.1 files with warcio.

warcio is lenient by design: a garbage HTTP status line parses, a truncated last gzip member yields a
short payload without an error, a last record cut inside its headers ends the iteration silently, and
lines of plain text parse as ARC records. Each of these is checked here and reported as an
:class:`Unreadable` item with its byte offset (a file that does not start with a ``WARC/`` line is one
``not_a_warc`` item, not one per line). A record whose payload was cut short (the file ends inside it,
or the crawler marked it ``WARC-Truncated``) is kept flagged (``RawPage.truncated``) or rejected, as
:attr:`WarcLimits.truncated` says.

Sizes are bounded: no header line is read longer than :data:`MAX_LINE_BYTES`, no record's header
block longer than ``max_header_bytes`` (``header_too_large``; reading goes on at the next gzip member,
and in a plain WARC, which has no framing to find the next record by, the reject says the rest is not
read), a record whose block is
over ``max_record_bytes`` is skipped unread (warcio drains it in 16 KiB steps to reach the next one), and
a payload is read in steps and given up once it passes ``max_page_bytes`` (a ``Content-Encoding`` gzip
bomb inflates inside a record of modest size).
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Final

from warcio.archiveiterator import ArchiveIterator
from warcio.bufferedreaders import DecompressingBufferedReader
from warcio.exceptions import ArchiveLoadFailed
from warcio.recordloader import ArcWarcRecord
from warcio.utils import BUFF_SIZE

from almanac.ccnews.jsonl import DEFAULT_MAX_LINE_BYTES
from almanac.ccnews.newsplease import DEFAULT_MAX_FIELD_BYTES
from almanac.ccnews.records import RawPage, ReaderItem, Skipped, Unreadable
from almanac.core.record_errors import RECORD_ERROR, describe_error, reraise_infrastructure

_STATUS_CODE = re.compile(r"^\d{3}$")
_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)
# A WARC or HTTP header line is a few hundred bytes; one without a newline for this long is garbage
# (or a bomb), and is cut here instead of being accumulated whole by warcio's readline.
MAX_LINE_BYTES: Final = 1 << 20
DEFAULT_MAX_HEADER_BYTES: Final = 1 << 20
TRUNCATED_POLICIES: Final = ("salvage", "reject")


@dataclass(frozen=True)
class WarcLimits:
    """The readers' size caps (WARC records, and news-please lines and fields)."""

    # Decompressed record block (HTTP headers + payload) as its WARC Content-Length declares it.
    # Common Crawl cuts payloads at 1 MiB (5 MiB since 2025), so 20 MB leaves room for any crawler.
    max_record_bytes: int = 20_000_000
    max_page_bytes: int = 10_000_000  # HTTP payload after Content-Encoding / chunked decoding
    truncated: str = "salvage"  # a record cut short: salvage = keep what parses, flagged; reject
    # One WARC or HTTP header block (all its lines): real ones are a few KB. Bounds what warcio keeps of
    # a block of millions of short lines (a 105 KB gzip of them took 1.8 GB as parsed header pairs).
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES  # a news-please line (almanac.ccnews.jsonl)
    max_field_bytes: int = DEFAULT_MAX_FIELD_BYTES  # a news-please text field, UTF-8 bytes

    def __post_init__(self) -> None:
        if self.truncated not in TRUNCATED_POLICIES:
            raise ValueError(f"truncated must be one of {TRUNCATED_POLICIES}, not {self.truncated!r}")
        sizes = (self.max_record_bytes, self.max_page_bytes, self.max_header_bytes)
        if min(*sizes, self.max_line_bytes, self.max_field_bytes) <= 0:
            raise ValueError(
                "max_record_bytes, max_page_bytes, max_header_bytes, max_line_bytes and "
                "max_field_bytes must be positive"
            )


class HeaderBlockTooLarge(Exception):
    """A record's header lines (WARC and HTTP, with the blank lines before them) passed the cap."""


class LineCappedReader(DecompressingBufferedReader):  # type: ignore[misc]
    """warcio's reader with bounded lines and bounded header blocks.

    warcio parses headers with ``readline`` and reads blocks with ``read``, so the bytes returned by
    ``readline`` calls since the last ``read`` are the current record's header block: once they pass
    ``max_header_bytes`` the record is given up (:class:`HeaderBlockTooLarge`) before warcio has kept
    more than that many bytes of header pairs.
    """

    def __init__(self, stream: IO[bytes], max_header_bytes: int) -> None:
        super().__init__(stream, block_size=BUFF_SIZE)
        self.max_header_bytes = max_header_bytes
        self.header_bytes = 0

    def readline(self, length: int | None = None) -> bytes:
        line = bytes(super().readline(min(length, MAX_LINE_BYTES) if length else MAX_LINE_BYTES))
        self.header_bytes += len(line)
        if self.header_bytes > self.max_header_bytes:
            raise HeaderBlockTooLarge(f"header block over max_header_bytes {self.max_header_bytes}")
        return line

    def read(self, length: int | None = None) -> bytes:
        self.header_bytes = 0
        return bytes(super().read(length))


def read_warc(path: Path, label: str, limits: WarcLimits | None = None) -> Iterator[ReaderItem]:
    """Yield one item per WARC record; ``label`` names the file in source locations."""
    limits = limits or WarcLimits()
    problem = _sniff(path)
    if problem is not None:
        yield Unreadable(problem[0], problem[1], f"{label}:0")
        return
    offset = 0
    cut_short = False  # the last record was short: the file ends inside it, already reported there
    with open(path, "rb") as stream:
        reader = LineCappedReader(stream, limits.max_header_bytes)
        iterator = _iterator_at(stream, reader, 0)
        try:
            while True:
                try:
                    for record in iterator:
                        # Set when the previous record was drained: this record's start.
                        offset = iterator.offset
                        item = _isolated_record(record, limits)
                        cut_short = _cut_short(record)
                        yield _locate(item, label, offset)
                        # An empty block is never read(): its header bytes must not count for the next.
                        reader.header_bytes = 0
                    break
                except (ArchiveLoadFailed, EOFError, OSError, ValueError):
                    raise
                except Exception as error:  # HeaderBlockTooLarge, or warcio failing on odd headers
                    # warcio cannot resume a failed parse: go on at the next gzip member, if there is one.
                    reraise_infrastructure(error)
                    resumed = _next_member(stream, reader)
                    more = "" if resumed is not None else "; the rest of the file cannot be framed, not read"
                    reason, detail = (
                        ("header_too_large", str(error))
                        if isinstance(error, HeaderBlockTooLarge)
                        else (RECORD_ERROR, describe_error(error))
                    )
                    yield Unreadable(reason, f"{detail}{more}", f"{label}:{iterator.offset}")
                    if resumed is None:
                        return
                    iterator = _iterator_at(stream, reader, resumed)
        except ArchiveLoadFailed as error:
            yield Unreadable("corrupt_record", _first_line(error), f"{label}:{offset}")
            return
        except (EOFError, OSError, ValueError) as error:
            # zlib/gzip errors surface as OSError/EOFError mid-file: keep what came before.
            if not cut_short:
                yield Unreadable("truncated_file", f"{type(error).__name__}: {error}", f"{label}:{offset}")
            return
        end = iterator.offset
    size = path.stat().st_size
    if end < size and not cut_short:
        # warcio ends quietly when the file stops inside a record's WARC headers: the record is lost.
        detail = f"the last {size - end} bytes are a record cut short before its headers end"
        yield Unreadable("truncated_file", detail, f"{label}:{end}")


def _iterator_at(stream: IO[bytes], reader: LineCappedReader, offset: int) -> ArchiveIterator:
    iterator = ArchiveIterator(stream, arc2warc=False)
    iterator.reader = reader
    iterator.offset = offset
    return iterator


def _next_member(stream: IO[bytes], reader: LineCappedReader) -> int | None:
    """Skip the rest of the current gzip member (in BUFF_SIZE steps) and start the next; the next
    member's file offset, or None when the file is not per-record gzip or has no member left."""
    if not reader.decompressor:
        return None
    while reader.read(BUFF_SIZE):
        pass
    if not reader.read_next_member():
        return None
    return int(stream.tell() - reader.rem_length())


def _sniff(path: Path) -> tuple[str, str] | None:
    """(reason, detail) when the file is not a WARC at all; its first line must be a ``WARC/`` version."""
    with open(path, "rb") as handle:
        head = handle.read(BUFF_SIZE)
    if not head:
        return "empty_file", "no WARC record in 0 bytes"
    start = head
    if head.startswith(b"\x1f\x8b"):
        try:
            start = zlib.decompressobj(31).decompress(head, 1024)  # max_length: a bomb stays small
        except zlib.error as error:
            return "not_a_warc", f"gzip data cannot be read: {error}"
    start = start.lstrip(b"\r\n")
    if start.startswith(b"WARC/"):
        return None
    if b"WARC/".startswith(start):
        return "truncated_file", f"the file ends before its first record ({len(head)} bytes)"
    first = start.split(b"\n", 1)[0][:60]
    return "not_a_warc", f"starts with {first!r}, not a WARC/ version line"


def _locate(item: ReaderItem, label: str, offset: int) -> ReaderItem:
    if isinstance(item, RawPage):
        return replace(item, source=f"{label}:{offset}", offset=offset)
    if isinstance(item, Unreadable):
        return replace(item, source=f"{label}:{offset}")
    return item


def _isolated_record(record: ArcWarcRecord, limits: WarcLimits) -> ReaderItem:
    """:func:`_read_record`, with whatever one record raises made that record's ``record_error``."""
    try:
        return _read_record(record, limits)
    except HeaderBlockTooLarge:
        raise
    except Exception as error:
        reraise_infrastructure(error)
        return Unreadable(RECORD_ERROR, describe_error(error), "")


def _read_record(record: ArcWarcRecord, limits: WarcLimits) -> ReaderItem:
    """Classify and read one record; the caller fills in its location.

    Nothing is drained here: the iterator reads the rest of a record in BUFF_SIZE steps to find the next.
    """
    source = ""
    if record.rec_type != "response":
        return Skipped(record.rec_type or "unknown")
    url = record.rec_headers.get_header("WARC-Target-URI") or ""
    http = record.http_headers
    if http is None or not str(http.protocol).upper().startswith("HTTP/"):
        statusline = "" if http is None else f"{http.protocol} {http.statusline}"
        return Unreadable("broken_http_header", f"status line not HTTP: {statusline[:80]!r}", source)
    status = http.get_statuscode()
    if not _STATUS_CODE.match(status or ""):
        return Unreadable("broken_http_header", f"no 3-digit status code in {http.statusline[:80]!r}", source)
    declared = _int_or_none(record.rec_headers.get_header("Content-Length"))
    if declared is not None and declared > limits.max_record_bytes:
        return Unreadable(
            "record_too_large",
            f"record block of {declared} bytes > max_record_bytes {limits.max_record_bytes}",
            source,
        )
    try:
        payload = read_bounded(record.content_stream(), limits.max_page_bytes)
    except Exception as error:  # warcio decoders raise zlib/brotli/chunked errors of many types
        return Unreadable("unreadable_payload", f"{type(error).__name__}: {error}", source)
    if payload is None:
        return Unreadable(
            "page_too_large", f"HTTP payload over max_page_bytes {limits.max_page_bytes}", source
        )
    if status != "200":
        return Unreadable("http_status", f"HTTP status {status}", source)
    content_type = http.get_header("Content-Type") or ""
    if content_type and "html" not in content_type.lower():
        return Unreadable("not_html", f"Content-Type {content_type[:80]!r}", source)
    truncation, detail = _truncation(record)
    if truncation and limits.truncated == "reject":
        return Unreadable("truncated_record", detail, source)
    charset_match = _CHARSET.search(content_type)
    return RawPage(
        url=url,
        html=payload,
        charset=charset_match.group(1).lower() if charset_match else None,
        crawl_date=_parse_warc_date(record.rec_headers.get_header("WARC-Date")),
        source=source,
        offset=-1,
        truncated=truncation,
    )


def read_bounded(stream: IO[bytes], cap: int) -> bytes | None:
    """The stream's bytes, or None as soon as there are more than ``cap`` (never more held in memory)."""
    chunks: list[bytes] = []
    size = 0
    while chunk := stream.read(BUFF_SIZE):
        size += len(chunk)
        if size > cap:
            return None
        chunks.append(chunk)
    return b"".join(chunks)


def _cut_short(record: ArcWarcRecord) -> bool:
    return bool(getattr(record.raw_stream, "limit", 0))


def _truncation(record: ArcWarcRecord) -> tuple[str, str]:
    """(kind, detail) of an incomplete payload: ``cut_short`` | ``warc_truncated``; ("", "") when whole."""
    missing = getattr(record.raw_stream, "limit", 0)
    if missing:  # warcio returns a short payload, not an error, when the file ends inside a record
        return "cut_short", f"record ends {missing} bytes before its Content-Length"
    marked = record.rec_headers.get_header("WARC-Truncated")
    if marked:  # the crawler stored only the start of the payload (Common Crawl: over 1 MiB)
        return "warc_truncated", f"WARC-Truncated: {marked[:40]}"
    return "", ""


def _int_or_none(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


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
