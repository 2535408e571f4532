"""Read-only WARC page archives: news pages a lab (or the bundled sample) crawled itself, found by URL.

An archive is a folder of ``*.warc.gz`` / ``*.warc`` files (WARC/1.0 or 1.1, per-record gzip or plain).
Only ``response`` records count; each is keyed by :func:`almanac.wcep.news.match_key` of its
``WARC-Target-URI``, the same key by which event URLs find CC-News articles, so scheme, a leading
``www.`` and tracking parameters do not matter. Folders are read in the order given, files in name
order, records in file order; the first record of a key wins (a later capture of the same page is
counted as ``duplicate_records``, never read), which keeps the choice independent of directory listing
order and of which copy a crawler happened to write last.

Only wanted keys are read into memory; every other record is skipped. A record that cannot be used is
kept as a :class:`PageProblem` under its URL (reason ``archive_unreadable``, ``not_html``,
``http_status``, ``no_extractable_text``), so a URL whose captured page is broken is rejected with that
reason rather than looking absent. A page whose bytes do not fit its label is read with the charset
:func:`almanac.ccnews.extract.decode_page` detects, windows-1252 for Western pages (counted in
:attr:`PageArchive.relabelled_pages`). Damage that hides the URL itself (a garbled
header, a gzip member cut short before its WARC header ends) cannot be attributed: it stops the file
there and is tallied in :attr:`PageArchive.file_problems`.

Sizes are bounded as in the CC-News reader (:class:`almanac.ccnews.warc.WarcLimits`, its defaults): header
lines and header blocks are capped (a header block over the cap stops the file, tallied as
``HeaderBlockTooLarge``), a record block over ``max_record_bytes`` is skipped unread
(``record_too_large``), a payload is read in steps and given up past ``max_page_bytes``
(``page_too_large``), and whatever else one record raises is its ``record_error``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Final

from warcio.archiveiterator import ArchiveIterator
from warcio.recordloader import ArcWarcRecord

from almanac.ccnews.extract import decode_page, extract_article
from almanac.ccnews.warc import LineCappedReader, WarcLimits, read_bounded
from almanac.core.record_errors import RECORD_ERROR, describe_error, reraise_infrastructure
from almanac.wcep.news import match_key

PATTERNS: Final = ("*.warc.gz", "*.warc")
_STATUS = re.compile(r"^\d{3}$")
_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)


@dataclass(frozen=True)
class ArchivedPage:
    title: str | None
    text: str
    publish_date: datetime | None
    source: str  # <file name>:<record offset>
    relabelled: bool = False  # read with a detected charset: its bytes did not fit its label


@dataclass(frozen=True)
class PageProblem:
    reason: str
    detail: str


@dataclass
class PageArchive:
    """The usable pages (and the unusable records) of the wanted URLs, looked up by :meth:`find`."""

    records: dict[str, ArchivedPage | PageProblem] = field(default_factory=dict)
    files: int = 0
    duplicate_records: int = 0
    relabelled_pages: int = 0  # pages read with a detected charset, not their label (see _decoded)
    file_problems: dict[str, int] = field(default_factory=dict)  # reason -> files cut short by it

    limits: WarcLimits = field(default_factory=WarcLimits)

    @classmethod
    def open(cls, folders: Sequence[Path], urls: Iterable[str]) -> PageArchive:
        """Read every archive file under ``folders`` for the pages of ``urls``; a missing folder is an
        error (a typo in ``page_archives`` must not silently mean "no archive")."""
        archive = cls()
        wanted = {match_key(url) for url in urls}
        for folder in folders:
            if not folder.is_dir():
                raise FileNotFoundError(f"page archive folder {folder} does not exist")
            paths = sorted({path for pattern in PATTERNS for path in folder.glob(pattern)})
            for path in paths:
                archive.files += 1
                archive._read_file(path, wanted)
        return archive

    def find(self, url: str) -> ArchivedPage | PageProblem | None:
        return self.records.get(match_key(url))

    def _read_file(self, path: Path, wanted: set[str]) -> None:
        with open(path, "rb") as stream:
            iterator = ArchiveIterator(stream, arc2warc=False)
            iterator.reader = LineCappedReader(stream, self.limits.max_header_bytes)
            try:
                for record in iterator:
                    self._read_record(record, path.name, iterator, wanted)
                    iterator.reader.header_bytes = 0
            except Exception as error:  # ArchiveLoadFailed, EOFError, zlib's OSError, HeaderBlockTooLarge ...
                # The file is damaged beyond the last whole record: keep what came before.
                reraise_infrastructure(error)
                reason = type(error).__name__
                self.file_problems[reason] = self.file_problems.get(reason, 0) + 1

    def _read_record(
        self, record: ArcWarcRecord, name: str, iterator: ArchiveIterator, wanted: set[str]
    ) -> None:
        uri = record.rec_headers.get_header("WARC-Target-URI") or ""
        key = match_key(uri) if record.rec_type == "response" and uri else ""
        if key not in wanted:
            return  # the iterator drains the record in BUFF_SIZE steps to find the next one
        if key in self.records:
            self.duplicate_records += 1
            return
        try:
            outcome = _page(record, uri, self.limits)
        except Exception as error:  # whatever one record raises is that URL's problem, not the run's
            reraise_infrastructure(error)
            outcome = PageProblem(RECORD_ERROR, describe_error(error))
        # The offset is known once the record is consumed (warcio reads to its end to find it).
        location = f"{name}:{iterator.get_record_offset()}"
        if isinstance(outcome, PageProblem):
            self.records[key] = PageProblem(outcome.reason, f"{location}: {outcome.detail}")
        else:
            self.relabelled_pages += outcome.relabelled
            self.records[key] = replace(outcome, source=location)


def _page(record: ArcWarcRecord, uri: str, limits: WarcLimits) -> ArchivedPage | PageProblem:
    http = record.http_headers
    if http is None or not str(http.protocol).upper().startswith("HTTP/"):
        return PageProblem("archive_unreadable", "the record has no HTTP response header")
    status = http.get_statuscode() or ""
    if not _STATUS.match(status):
        return PageProblem("archive_unreadable", f"no 3-digit HTTP status in {http.statusline[:80]!r}")
    declared = (record.rec_headers.get_header("Content-Length") or "").strip()
    if declared.isdigit() and int(declared) > limits.max_record_bytes:
        detail = f"record block of {declared} bytes > max_record_bytes {limits.max_record_bytes}"
        return PageProblem("record_too_large", detail)
    try:
        payload = read_bounded(record.content_stream(), limits.max_page_bytes)
    except Exception as error:  # warcio's decoders raise zlib/brotli/chunked errors of many types
        return PageProblem("archive_unreadable", f"payload cannot be decoded: {type(error).__name__}")
    if payload is None:
        return PageProblem("page_too_large", f"HTTP payload over max_page_bytes {limits.max_page_bytes}")
    missing = getattr(record.raw_stream, "limit", 0)
    if missing:  # warcio returns a short payload, not an error, when a record is cut short
        return PageProblem("archive_unreadable", f"record ends {missing} bytes before its Content-Length")
    if status != "200":
        return PageProblem("http_status", f"HTTP status {status}")
    content_type = http.get_header("Content-Type") or ""
    if content_type and "html" not in content_type.lower():
        return PageProblem("not_html", f"Content-Type {content_type[:80]!r}")
    charset = _CHARSET.search(content_type)
    html = _decoded(payload, charset.group(1).lower() if charset else None)
    if isinstance(html, PageProblem):
        return html
    extracted = extract_article(html[0], uri)
    if extracted is None:
        return PageProblem("no_extractable_text", "no article text found in the page")
    return ArchivedPage(extracted.title, extracted.text, extracted.publish_date, "", html[1])


def _decoded(payload: bytes, declared: str | None) -> tuple[str, bool] | PageProblem:
    """(the page's text, whether its charset was detected rather than declared), or why it cannot be read.

    :func:`decode_page`: the browsers' order (BOM, HTTP charset, ``<meta>``, UTF-8), and charset-normalizer
    when the bytes do not fit the label (legacy Western pages served under a UTF-8 label are the common
    case; they read as windows-1252, the WHATWG guess).
    """
    try:
        decoded = decode_page(payload, declared)
    except UnicodeDecodeError as error:
        detail = f"bytes invalid for {error.encoding} ({error.reason}) and no charset detected"
        return PageProblem("archive_unreadable", detail)
    return decoded.text, decoded.source == "detected"
