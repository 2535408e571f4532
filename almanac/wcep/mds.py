"""Read the WCEP-MDS release: JSONL (plain or gzip), one event cluster per line.

Each line holds a portal event (``date``, ``summary``, ``category``) with the articles gathered
for it. The release carries no story bullets, so its events have an empty story path. Like the
news-please reader, every bad line becomes one ``Unreadable`` item and the rest of the file is kept;
lines are read in blocks with a cap on each (``wcep_ingest.max_line_bytes``), never whole first.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from almanac.ccnews.jsonl import read_json_objects
from almanac.ccnews.records import Unreadable
from almanac.core.ids import canonical_url, content_id, source_domain
from almanac.core.record_errors import describe_error
from almanac.wcep.portal import WcepEvent

REQUIRED_FIELDS = ("date", "summary")
# A WCEP-MDS line is one event with its articles' texts: tens of KB, rarely a few MB. 16 MiB keeps every
# real line and bounds what one line can take (json.loads costs a few times the line).
DEFAULT_MAX_LINE_BYTES = 16 * 1024 * 1024


@dataclass(frozen=True)
class MdsArticle:
    url: str  # canonical
    title: str | None
    time: str | None  # as written in the release; parsed by whoever needs it
    text: str | None
    origin: str | None  # "WCEP" (the portal's own source link) or "CommonCrawl"


@dataclass(frozen=True)
class MdsEvent:
    event: WcepEvent
    mds_id: str | None  # the release's own cluster id, kept for tracing
    articles: tuple[MdsArticle, ...]
    skipped_links: int  # article entries or reference URLs without a usable URL (counted, not lost)
    source: str  # "<file>:<line number>"


MdsItem = MdsEvent | Unreadable


def read_wcep_mds(path: Path, label: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[MdsItem]:
    """One item per non-blank line; a line over ``max_line_bytes`` is rejected ``line_too_long`` with its
    size without being held, and whatever one line raises is that line's reject."""
    for line in read_json_objects(path, label, max_line_bytes):
        if isinstance(line, Unreadable):
            yield line
            continue
        record, source = line.record, line.source
        try:
            yield _to_event(record, source)
        except Exception as error:  # a value no rule foresaw: this line's reject, the file goes on
            yield Unreadable("unreadable_line", describe_error(error), source)


def _to_event(record: dict[str, Any], source: str) -> MdsItem:
    missing = [
        name for name in REQUIRED_FIELDS if not isinstance(record.get(name), str) or not record[name].strip()
    ]
    if missing:
        return Unreadable("missing_field", f"missing or empty: {', '.join(missing)}", source)
    try:
        # The release writes "2019-01-01"; some copies carry a time as well, which we drop.
        day = date.fromisoformat(record["date"].strip()[:10])
    except ValueError:
        return Unreadable("bad_date", f"unparseable date {record['date']!r}", source)
    articles_field = record.get("articles", [])
    references_field = record.get("reference_urls", [])
    if not isinstance(articles_field, list) or not isinstance(references_field, list):
        return Unreadable("bad_field", "'articles' and 'reference_urls' must be lists", source)

    articles: list[MdsArticle] = []
    skipped = 0
    for entry in articles_field:
        url = entry.get("url") if isinstance(entry, dict) else None
        if not isinstance(url, str) or not url.strip():
            skipped += 1
            continue
        articles.append(
            MdsArticle(
                url=canonical_url(url),
                title=_optional_text(entry.get("title")),
                time=_optional_text(entry.get("time")),
                text=_optional_text(entry.get("text")),
                origin=_optional_text(entry.get("origin")),
            )
        )
    urls: list[str] = []
    for url in [article.url for article in articles] + [
        canonical_url(value) for value in references_field if isinstance(value, str) and value.strip()
    ]:
        if url not in urls:
            urls.append(url)
    skipped += sum(1 for value in references_field if not isinstance(value, str) or not value.strip())

    summary = " ".join(record["summary"].split())
    category = record.get("category")
    event = WcepEvent(
        event_id=content_id(day.isoformat(), summary),
        date=day,
        category=" ".join(category.split()) if isinstance(category, str) else "",
        story_path=(),
        summary=summary,
        source_urls=tuple(urls),
        source_names=tuple(source_domain(url) for url in urls),
    )
    mds_id = record.get("id")
    return MdsEvent(
        event=event,
        mds_id=str(mds_id) if isinstance(mds_id, str | int) else None,
        articles=tuple(articles),
        skipped_links=skipped,
        source=source,
    )


def _optional_text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None
