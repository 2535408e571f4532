"""Feed portal day pages to the parser and keep every page accounted for.

Pages come either from a directory of raw wikitext files (one page per file, the file named after the
page title with ``/`` written as ``__``) or from any iterable of ``(title, wikitext)`` pairs, such as
the namespace-100 pages of a pages-articles dump. Each page ends up parsed, rejected with a reason,
or counted as not being a day page at all (other portals, month indexes, sidebars).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, NamedTuple

import pyarrow as pa
from mwparserfromhell.parser import ParserError

from almanac.ccnews.records import Unreadable
from almanac.core.record_errors import describe_error
from almanac.wcep.portal import PORTAL_PREFIX, PortalLayoutError, WcepEvent, parse_day, parse_title_date

DAY_FILE_SUFFIXES = (".wikitext", ".txt")
TITLE_SLASH = "__"  # stands for "/" in file names
# The dump reader's cap (almanac.wiki.dump); kept here so that wcep_news, which imports this module,
# does not depend on the dump reader.
DEFAULT_MAX_PAGE_BYTES = 4 * 1024 * 1024
# Shape of a day title, checked before the date itself: "2025 Aprl 3" is a broken day page (a
# reject), while "2025 April" or "Sidebar" are other portal pages (merely counted).
_DAY_TITLE_SHAPE = re.compile(r"^\d{4}[ _]\S+[ _]\d{1,2}$")

# Proposed output table of wcep_ingest (one row per event); candidates for almanac.core.schemas.
WCEP_EVENT_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),  # content_id(date ISO, summary)
        pa.field("date", pa.date32(), nullable=False),
        pa.field("category", pa.string(), nullable=False),
        pa.field("story_path", pa.list_(pa.string()), nullable=False),
        pa.field("summary", pa.string(), nullable=False),
        pa.field("source_urls", pa.list_(pa.string()), nullable=False),
        pa.field("source_names", pa.list_(pa.string()), nullable=False),
        pa.field("origin", pa.string(), nullable=False),  # "portal" | "wcep_mds"
        pa.field("source", pa.string(), nullable=False),  # "<label>:<page title>" or "<file>:<line>"
    ]
)


class PageReject(NamedTuple):
    reason: str
    detail: str
    source: str


class SourcedEvent(NamedTuple):
    event: WcepEvent
    source: str


@dataclass
class DayPagesResult:
    """Invariant: pages_read == pages_parsed + len(page_rejects) + not_day_pages."""

    events: list[SourcedEvent] = field(default_factory=list)
    page_rejects: list[PageReject] = field(default_factory=list)
    # Bullets with source links but no summary text: the page is kept, the bullet is reported here.
    bullet_rejects: list[PageReject] = field(default_factory=list)
    pages_read: int = 0
    pages_parsed: int = 0
    not_day_pages: int = 0


def title_from_file_name(name: str) -> str:
    stem = name
    for suffix in DAY_FILE_SUFFIXES:
        stem = stem.removesuffix(suffix)
    return stem.replace(TITLE_SLASH, "/")


def file_name_for_title(title: str, suffix: str = ".wikitext") -> str:
    return title.replace("/", TITLE_SLASH) + suffix


def read_day_directory(
    directory: Path, max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES
) -> Iterator[tuple[str, str] | Unreadable]:
    """``(title, wikitext)`` per day-page file, by day then file name; undecodable files, and files over
    ``max_page_bytes`` (never read), as Unreadable."""
    paths = sorted(
        (path for path in directory.iterdir() if path.is_file() and path.name.endswith(DAY_FILE_SUFFIXES)),
        key=lambda path: (parse_title_date(title_from_file_name(path.name)) or date.max, path.name),
    )
    for path in paths:
        size = path.stat().st_size
        if size > max_page_bytes:
            yield Unreadable("page_too_large", f"{size} bytes > max_page_bytes {max_page_bytes}", str(path))
            continue
        try:
            with open(path, "rb") as handle:  # at most one byte past the cap, if it grew since
                data = handle.read(max_page_bytes + 1)
            if len(data) > max_page_bytes:
                yield Unreadable("page_too_large", f"more than max_page_bytes {max_page_bytes}", str(path))
                continue
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            yield Unreadable("undecodable_payload", f"invalid UTF-8 at byte {error.start}", str(path))
            continue
        yield title_from_file_name(path.name), text


def is_day_page_title(title: str) -> bool:
    """True for titles shaped like a day page, whether or not the date in them is valid."""
    title = title.strip().replace("_", " ")
    return title.startswith(PORTAL_PREFIX) and bool(_DAY_TITLE_SHAPE.match(title[len(PORTAL_PREFIX) :]))


def parse_day_pages(pages: Iterable[tuple[str, str] | Unreadable], label: str) -> DayPagesResult:
    """Parse every day page; pages the reader already failed on pass through as rejects."""
    result = DayPagesResult()
    for page in pages:
        result.pages_read += 1
        if isinstance(page, Unreadable):
            result.page_rejects.append(PageReject(page.reason, page.detail, page.source))
            continue
        title, wikitext = page
        source = f"{label}:{title}"
        if not is_day_page_title(title):
            result.not_day_pages += 1
            continue
        try:
            parsed = parse_day(title, wikitext)
        except PortalLayoutError as error:
            result.page_rejects.append(PageReject("unexpected_layout", str(error), source))
            continue
        except ParserError as error:
            result.page_rejects.append(PageReject("broken_wikitext", str(error), source))
            continue
        except Exception as error:  # whatever one page raises is that page's reject, not the stage's
            result.page_rejects.append(PageReject("unreadable_page", describe_error(error), source))
            continue
        result.pages_parsed += 1
        result.events.extend(SourcedEvent(event, source) for event in parsed.events)
        result.bullet_rejects.extend(
            PageReject("empty_event_summary", detail, source) for detail in parsed.empty_bullets
        )
    return result


def parse_day_directory(directory: Path, max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES) -> DayPagesResult:
    return parse_day_pages(read_day_directory(directory, max_page_bytes), str(directory))


def event_row(event: WcepEvent, origin: str, source: str) -> dict[str, Any]:
    """One row of WCEP_EVENT_SCHEMA."""
    return {
        "id": event.event_id,
        "date": event.date,
        "category": event.category,
        "story_path": list(event.story_path),
        "summary": event.summary,
        "source_urls": list(event.source_urls),
        "source_names": list(event.source_names),
        "origin": origin,
        "source": source,
    }
