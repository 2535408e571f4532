"""What the CC-News readers yield: a raw page to extract, a ready article, a skip, or a failure."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from almanac.ccnews.dates import DateFinding


@dataclass(frozen=True)
class RawPage:
    """An HTTP response payload from a WARC ``response`` record, not yet extracted."""

    url: str
    html: bytes
    charset: str | None  # from the HTTP Content-Type header, if declared
    crawl_date: datetime | None
    source: str  # "<file>:<byte offset>"
    offset: int
    # Why the payload is incomplete, "" when whole: "cut_short" (the file ends inside the record) or
    # "warc_truncated" (the crawler stored only its start). Kept only under ``truncated: salvage``.
    truncated: str = ""


@dataclass(frozen=True)
class ParsedArticle:
    """An article whose fields are already extracted (news-please JSONL)."""

    url: str
    title: str | None
    text: str
    date: DateFinding  # from the feed's date_publish (source "feed")
    crawl_date: datetime | None
    source: str  # "<file>:<line number>"
    offset: int


@dataclass(frozen=True)
class Skipped:
    """A record that is not an article by type (warcinfo, request, revisit, metadata, ...)."""

    record_type: str


@dataclass(frozen=True)
class Unreadable:
    """A record or a whole file that could not be parsed; becomes a reject row."""

    reason: str
    detail: str
    source: str


ReaderItem = RawPage | ParsedArticle | Skipped | Unreadable
