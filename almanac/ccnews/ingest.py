"""CC-News ingest: raw files of one crawl month -> filtered article rows + a ledger of rejects.

One work item per file, so Ray spreads a month's WARC files over the workers; every worker returns
its rows and its own ledger, merged by the stage in file order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from almanac.ccnews.dates import DateDecision, DateFinding, DatePolicy, decide_date
from almanac.ccnews.extract import decode_page, detect_language, extract_article, normalize_text
from almanac.ccnews.filters import (
    FilterConfig,
    Verdict,
    check_domain,
    check_language,
    check_length,
    check_publish_window,
)
from almanac.ccnews.jsonl import DEFAULT_MAX_LINE_BYTES
from almanac.ccnews.newsplease import DEFAULT_MAX_FIELD_BYTES
from almanac.ccnews.readers import read_file, reader_kind
from almanac.ccnews.records import ParsedArticle, RawPage, Skipped, Unreadable
from almanac.ccnews.warc import DEFAULT_MAX_HEADER_BYTES, WarcLimits
from almanac.core.ids import canonical_url, content_id, source_domain
from almanac.core.months import month_of
from almanac.core.record_errors import RECORD_ERROR, describe_error, reraise_infrastructure
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.core.text import word_count as count_words

STAGE = "ccnews_ingest"
# Bookkeeping files that sit beside raw data (the downloader's manifest) and are not inputs.
IGNORED_NAMES = frozenset({"MANIFEST.json", "README.md", "warc.paths", "warc.paths.gz"})


@dataclass(frozen=True)
class IngestConfig:
    raw_dir: str = "data/raw/sample/ccnews"
    filters: FilterConfig = field(default_factory=FilterConfig)
    decode_errors: str = "strict"  # "replace" keeps mis-encoded pages with U+FFFD instead of rejecting
    # No defensible publication day: "crawl_date" keeps the article dated by its crawl (an upper
    # bound, flagged in date_precision); "reject" drops it with reason no_publish_date.
    undated: str = "crawl_date"
    max_date_lag_days: int = 30  # a day guessed from the text this long before the crawl is not believed
    # A WARC record cut short (the file ends inside it, or WARC-Truncated): "salvage" keeps the article
    # if what was read still extracts (row flag ``truncated``); "reject" drops it as truncated_record.
    truncated: str = "salvage"
    # Size caps, so that no input takes unbounded memory: the decompressed record block, the page
    # (HTTP payload), and the extracted article; over-cap items are rejected with the cap in the reason.
    max_record_bytes: int = 20_000_000
    max_page_bytes: int = 10_000_000
    max_article_words: int = 100_000  # the longest news features run to ~30,000 words
    max_header_bytes: int = DEFAULT_MAX_HEADER_BYTES  # one WARC or HTTP header block (header_too_large)
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES  # one news-please line, read in chunks (line_too_long)
    max_field_bytes: int = DEFAULT_MAX_FIELD_BYTES  # one news-please text field (field_too_large)

    def __post_init__(self) -> None:
        DatePolicy(self.undated, self.max_date_lag_days)  # validate at start-up, not per article
        _limits = self.warc_limits  # made once here so a bad cap fails at start-up
        if self.max_article_words <= 0:
            raise ValueError("max_article_words must be positive")

    @property
    def date_policy(self) -> DatePolicy:
        return DatePolicy(self.undated, self.max_date_lag_days)

    @property
    def warc_limits(self) -> WarcLimits:
        return WarcLimits(
            self.max_record_bytes,
            self.max_page_bytes,
            self.truncated,
            self.max_header_bytes,
            self.max_line_bytes,
            self.max_field_bytes,
        )


@dataclass(frozen=True)
class FileTask:
    path: str
    label: str  # stable name of the file in source locations (relative, so IDs don't depend on clones)
    kind: str  # a reader kind of almanac.ccnews.readers, or "unknown"
    config: IngestConfig


def discover_files(raw_dir: Path, crawl_month: str) -> list[tuple[Path, str]]:
    """Every input file of one crawl month, sorted, with its reader kind."""
    month_dir = raw_dir / crawl_month
    if not month_dir.is_dir():
        raise FileNotFoundError(f"no raw directory for month {crawl_month}: {month_dir}")
    found = []
    # Not ``is_file()``: a dangling link fails loudly when read, and a FIFO or device is rejected
    # ``not_a_regular_file`` by the reader table (never opened); neither vanishes here.
    for path in sorted(p for p in month_dir.rglob("*") if not p.is_dir()):
        # ``.part`` files are downloads still in progress (almanac.core.download resumes them).
        if path.name.startswith(".") or path.name in IGNORED_NAMES or path.name.endswith(".part"):
            continue
        found.append((path, file_kind(path.name)))
    return found


def file_kind(name: str) -> str:
    return reader_kind(name)


def ingest_file(task: FileTask) -> tuple[list[dict[str, Any]], StageLedger]:
    """Read, extract and filter one file. Never raises for bad content, only for unreadable files."""
    ledger = StageLedger(STAGE)

    def decide(item: RawPage | ParsedArticle | Unreadable) -> dict[str, Any] | Drop:
        if isinstance(item, Unreadable):
            return Drop(item.reason, item.detail)
        try:
            row, verdict = _to_article(item, task, ledger)
        except Exception as error:  # whatever one page raises is that page's reject (record_errors)
            reraise_infrastructure(error)
            return Drop(RECORD_ERROR, describe_error(error))
        if verdict is not None:
            return Drop(*verdict)
        assert row is not None
        return row

    step = Step(decide, _reject_id, lambda item: item.source)
    rows = apply_step(_items(task, ledger), step, ledger, desc=f"{STAGE} {Path(task.label).name}")
    return rows, ledger


def _items(task: FileTask, ledger: StageLedger) -> Iterator[RawPage | ParsedArticle | Unreadable]:
    """The file's items; skipped records (request, metadata, ...) are tallied by type, not items.

    A reader that raises (a case its own checks missed) ends its file with one ``record_error`` item
    at the last position it reached; the items before are kept and the stage goes on.
    """
    items = read_file(Path(task.path), task.label, task.kind, task.config.warc_limits)
    last = f"{task.label}:0"
    while True:
        try:
            item = next(items)
        except StopIteration:
            return
        except OSError:  # the disk or permissions, not the record: the stage stops naming the file
            raise
        except Exception as error:
            reraise_infrastructure(error)
            yield Unreadable(RECORD_ERROR, f"reading stopped: {describe_error(error)}", f"{last}+")
            return
        if isinstance(item, Skipped):
            ledger.count("skipped_records_by_type", item.record_type)
        else:
            last = item.source
            yield item


def _reject_id(item: RawPage | ParsedArticle | Unreadable) -> str:
    # An unreadable record has no URL: it is filed under its position in the file.
    return content_id(item.source) if isinstance(item, Unreadable) else content_id(item.url, item.source)


def _to_article(
    item: RawPage | ParsedArticle, task: FileTask, ledger: StageLedger
) -> tuple[dict[str, Any] | None, Verdict]:
    filters = task.config.filters
    url = canonical_url(item.url)
    domain = source_domain(url)
    verdict = check_domain(domain, filters)  # before extraction: the cheapest filter goes first
    if verdict:
        return None, verdict
    charset = None
    if isinstance(item, RawPage):
        try:
            decoded = decode_page(item.html, item.charset, task.config.decode_errors)
        except UnicodeDecodeError as error:
            return None, (
                "undecodable_payload",
                f"bytes invalid for {error.encoding} at offset {error.start}",
            )
        charset = decoded.charset
        extracted = extract_article(decoded.text, url)
        if extracted is None and item.truncated:
            return None, ("truncated_record", f"{item.truncated}: no article text in the part that was read")
        if extracted is None:
            return None, ("no_extractable_text", "trafilatura found no paragraph of article text")
        title, text, found = extracted.title, extracted.text, extracted.date
    else:
        title, text, found = item.title, normalize_text(item.text), item.date
    if not text:
        return None, ("no_extractable_text", "empty article text")
    word_count = count_words(text)
    verdict = check_length(word_count, filters)  # first: language ID is unreliable on a few words
    if verdict:
        return None, verdict
    if word_count > task.config.max_article_words:
        return None, (
            "article_too_long",
            f"{word_count} words > max_article_words {task.config.max_article_words}",
        )
    language = detect_language(text)
    verdict = check_language(language, filters)
    if verdict:
        return None, verdict
    date = _decide_date(found, item.crawl_date, task.config.date_policy, ledger)
    if date.publish_date is None:
        return None, ("no_publish_date", date.detail)
    verdict = check_publish_window(date.publish_date, filters)
    if verdict:
        return None, verdict
    row = _row(item, task, url, domain, title, text, date, language, word_count, charset)
    # Counted for kept rows only (after the row is built: building it may raise), so each tally sums
    # to items_out.
    ledger.count("dates_by_source", date.source)
    ledger.count("dates_by_precision", date.precision)
    if isinstance(item, RawPage) and item.truncated:
        ledger.count("truncated_kept", item.truncated)
    return row, None


def _decide_date(
    found: DateFinding, crawl_date: datetime | None, policy: DatePolicy, ledger: StageLedger
) -> DateDecision:
    """Decide the row's date; count the year/month-only dates ignored and the days discarded."""
    for source in found.partial_sources:
        ledger.count("partial_dates_ignored", source)  # a year or month seen and not made a day
    decision = decide_date(found, crawl_date, policy)
    if decision.discarded is not None and found.source is not None:
        ledger.count(f"dates_discarded_{decision.discarded}", found.source)
    return decision


def _row(
    item: RawPage | ParsedArticle,
    task: FileTask,
    url: str,
    domain: str,
    title: str | None,
    text: str,
    date: DateDecision,
    language: str,
    word_count: int,
    charset: str | None,
) -> dict[str, Any]:
    assert date.publish_date is not None
    publish_date = date.publish_date
    return {
        "id": content_id(url, text),
        "url": url,
        "source_domain": domain,
        "title": title,
        "text": text,
        "publish_date": publish_date.astimezone(UTC).replace(microsecond=0),
        "publish_month": month_of(publish_date.astimezone(UTC)),
        "date_source": date.source,
        "date_precision": date.precision,
        "language": language,
        "word_count": word_count,
        "crawl_date": item.crawl_date.replace(microsecond=0) if item.crawl_date else None,
        "source_format": task.kind,  # the reader's kind (almanac.ccnews.readers)
        "source_file": task.label,
        "source_offset": item.offset,
        "charset": charset,
        "truncated": isinstance(item, RawPage) and bool(item.truncated),
    }
