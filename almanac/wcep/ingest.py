"""wcep_ingest: Current Events Portal day pages (from dumps or a folder) and WCEP-MDS JSONL -> events.

Items are source records: day pages, and WCEP-MDS lines. A record that parses counts as out (its
events are rows); a record that does not is a reject row. A bullet dropped inside a parsed page (a
source link with no summary) is an item of its own and a reject, so nothing disappears.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from almanac.ccnews.records import Unreadable
from almanac.core.ids import content_id
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.wcep.days import DayPagesResult, PageReject, event_row, parse_day_directory, parse_day_pages
from almanac.wcep.mds import DEFAULT_MAX_LINE_BYTES, MdsEvent, read_wcep_mds
from almanac.wiki.dump import DEFAULT_MAX_PAGE_BYTES, Skipped, WikiPage, read_dump
from almanac.wiki.ingest import find_dumps

STAGE = "wcep_ingest"
PORTAL_NAMESPACE = 100


@dataclass(frozen=True)
class WcepIngestConfig:
    dump_dir: str = "data/raw/sample/wikipedia"  # pages-articles dumps; their namespace-100 day pages
    portal_dir: str = ""  # optional folder of raw day-page wikitext files
    mds_files: tuple[str, ...] = ()  # optional WCEP-MDS JSONL files
    max_page_bytes: int = (
        DEFAULT_MAX_PAGE_BYTES  # a day page whose text is larger: page_too_large, never held
    )
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES  # a longer WCEP-MDS line: line_too_long, never held


def ingest_wcep(config: WcepIngestConfig) -> tuple[list[dict[str, Any]], StageLedger]:
    ledger = StageLedger(STAGE)
    rows: list[dict[str, Any]] = []
    if config.dump_dir:
        for dump in find_dumps(Path(config.dump_dir)):
            pages = _portal_pages(dump, ledger, config.max_page_bytes)
            _add_pages(parse_day_pages(pages, dump.as_posix()), rows, ledger)
    if config.portal_dir:
        _add_pages(parse_day_directory(Path(config.portal_dir), config.max_page_bytes), rows, ledger)
    mds = Step(_mds_row, lambda item: content_id(item.source), lambda item: item.source)
    for name in config.mds_files:
        rows.extend(apply_step(read_wcep_mds(Path(name), name, config.max_line_bytes), mds, ledger))
    rows.sort(key=lambda row: (row["date"], row["source"], row["story_path"], row["id"]))
    ledger.extra["events"] = len(rows)
    return rows, ledger


def _mds_row(item: MdsEvent | Unreadable) -> dict[str, Any] | Drop:
    if isinstance(item, MdsEvent):
        return event_row(item.event, "wcep_mds", item.source)
    return Drop(item.reason, item.detail)


def _portal_pages(
    dump: Path, ledger: StageLedger, max_page_bytes: int
) -> Iterator[tuple[str, str] | Unreadable]:
    for item in read_dump(dump, dump.as_posix(), (PORTAL_NAMESPACE,), max_page_bytes):
        if isinstance(item, Skipped):
            ledger.count("skipped_pages", item.kind)
        elif isinstance(item, WikiPage):
            yield item.title, item.text
        else:
            yield item


def _add_pages(result: DayPagesResult, rows: list[dict[str, Any]], ledger: StageLedger) -> None:
    """The day-page parser has already judged each page (and each bullet without a summary): its
    verdicts go through the step layer, a parsed page kept, a page or bullet it could not read rejected."""
    # Portal pages that are not day pages (sidebars, month indexes) are counted, not items.
    ledger.count("portal_pages", "not_a_day_page", result.not_day_pages)
    verdicts: list[PageReject | None] = [None] * result.pages_parsed
    verdicts += [*result.page_rejects, *result.bullet_rejects]
    apply_step(verdicts, Step(_parsed, _verdict_id, _verdict_source), ledger)
    rows.extend(event_row(sourced.event, "portal", sourced.source) for sourced in result.events)


def _parsed(verdict: PageReject | None) -> bool | Drop:
    return True if verdict is None else Drop(verdict.reason, verdict.detail)


def _verdict_id(verdict: PageReject | None) -> str:
    return "" if verdict is None else content_id(verdict.source, verdict.detail)


def _verdict_source(verdict: PageReject | None) -> str:
    return "" if verdict is None else verdict.source
