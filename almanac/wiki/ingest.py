"""wiki_ingest: pages-articles dumps -> main-namespace articles split into plain-text sections.

Items are pages: each article page read is kept or becomes a reject row (broken wikitext, too short,
no revision text, a truncated stream); redirects and pages of other namespaces are counted, not items.
A page kept from several dumps (two dates of the same wiki, or overlapping partial exports) is kept
once, its latest revision; the other copies are rejects ``duplicate_page`` (:func:`keep_latest_revisions`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.ccnews.records import Unreadable
from almanac.core.ids import content_id
from almanac.core.record_errors import describe_error
from almanac.core.rejects import StageLedger
from almanac.core.schemas import TIMESTAMP
from almanac.core.step import Drop, GroupStep, Step, apply_group_step, apply_step
from almanac.wiki.dump import DEFAULT_MAX_PAGE_BYTES, MAIN_NAMESPACE, Skipped, WikiPage, read_dump
from almanac.wiki.schema import SECTION_TYPE
from almanac.wiki.sections import WikitextError, split_sections, word_count

STAGE = "wiki_ingest"
DUMP_SUFFIXES = (".xml", ".xml.bz2", ".xml.gz")

WIKI_ARTICLE_SCHEMA = pa.schema(
    [
        pa.field("page_id", pa.int64(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("revision_id", pa.int64(), nullable=False),
        pa.field("revision_timestamp", TIMESTAMP, nullable=False),
        pa.field("sections", pa.list_(SECTION_TYPE), nullable=False),
        pa.field("word_count", pa.int32(), nullable=False),
        pa.field("source", pa.string(), nullable=False),  # "<dump file>:page:<page id>"
    ]
)


@dataclass(frozen=True)
class WikiIngestConfig:
    raw_dir: str = "data/raw/sample/wikipedia"
    min_words: int = 200  # OpenForecast kept articles long enough to hold an event's evolution
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES  # a page whose text is larger: page_too_large, never held


@dataclass(frozen=True)
class DumpTask:
    path: str
    label: str
    min_words: int
    max_page_bytes: int = DEFAULT_MAX_PAGE_BYTES


def find_dumps(raw_dir: Path) -> list[Path]:
    if not raw_dir.is_dir():
        raise FileNotFoundError(f"no Wikipedia dump directory: {raw_dir}")
    dumps = sorted(path for path in raw_dir.iterdir() if path.name.endswith(DUMP_SUFFIXES))
    if not dumps:
        raise FileNotFoundError(f"no pages-articles dump (*.xml, *.xml.bz2) in {raw_dir}")
    return dumps


def ingest_dump(task: DumpTask) -> tuple[list[dict[str, Any]], StageLedger]:
    """One dump file, streamed page by page (a worker's unit of work)."""
    ledger = StageLedger(STAGE)

    def decide(item: WikiPage | Unreadable) -> dict[str, Any] | Drop:
        if not isinstance(item, WikiPage):
            return Drop(item.reason, item.detail)
        try:
            sections = split_sections(item.text)
            words = word_count(sections)
        except WikitextError as error:
            return Drop("broken_wikitext", f"{item.title}: {error}"[:2000])
        except Exception as error:  # whatever one page raises is that page's reject, not the dump's
            return Drop("unreadable_page", f"{item.title}: {describe_error(error)}")
        if words < task.min_words:
            return Drop("too_short", f"{item.title}: {words} words < {task.min_words}")
        return {
            "page_id": item.page_id,
            "title": item.title,
            "revision_id": item.revision_id,
            "revision_timestamp": item.timestamp,
            "sections": [{"title": s.title, "level": s.level, "text": s.text} for s in sections],
            "word_count": words,
            "source": item.source,
            "site": item.site,  # not a column: the identity of the page with page_id
        }

    step = Step(decide, _reject_id, lambda item: item.source)
    rows = apply_step(_pages(task, ledger), step, ledger, desc=f"{STAGE} {Path(task.label).name}")
    return rows, ledger


def _pages(task: DumpTask, ledger: StageLedger) -> Iterator[WikiPage | Unreadable]:
    """The dump's main-namespace pages; skipped ones (redirects, ...) are tallied by kind, not items."""
    for item in read_dump(Path(task.path), task.label, (MAIN_NAMESPACE,), task.max_page_bytes):
        if isinstance(item, Skipped):
            ledger.count("skipped_pages", item.kind)
        else:
            yield item


def _reject_id(item: WikiPage | Unreadable) -> str:
    # An unreadable page has no page id: it is filed under its position in the dump.
    return str(item.page_id) if isinstance(item, WikiPage) else content_id(item.source)


def keep_latest_revisions(rows: list[dict[str, Any]], ledger: StageLedger) -> list[dict[str, Any]]:
    """One row per page (wiki ``site`` and ``page_id``): the latest revision by timestamp, then by
    revision id, then by source (the dump file's name), so the choice does not depend on worker order.

    Every other copy becomes a ``duplicate_page`` reject naming the copy that was kept; only kept rows
    compete, so a page that is too short in a newer dump but fine in an older one keeps the older text.
    """
    step = GroupStep(_page_key, _latest, _superseded, lambda row: str(row["page_id"]), _row_source)
    return apply_group_step(rows, step, ledger, chained=True)


def _page_key(row: dict[str, Any]) -> tuple[str, int]:
    return row["site"], row["page_id"]


def _latest(copies: Sequence[dict[str, Any]]) -> int:
    """The most recent copy; among equally recent ones the first."""
    return max(range(len(copies)), key=lambda index: (_recency(copies[index]), -index))


def _superseded(row: dict[str, Any], winner: dict[str, Any]) -> Drop:
    return Drop(
        "duplicate_page",
        f"{row['title']}: revision {row['revision_id']} of {row['revision_timestamp'].isoformat()}"
        f" superseded by revision {winner['revision_id']} of"
        f" {winner['revision_timestamp'].isoformat()} in {winner['source']}",
        related_id=winner["source"],
    )


def _row_source(row: dict[str, Any]) -> str:
    return str(row["source"])


def _recency(row: dict[str, Any]) -> tuple[datetime, int, str]:
    return row["revision_timestamp"], row["revision_id"], row["source"]
