"""Publication dates we can defend: where each one came from, and whether it is a day or only a bound.

trafilatura's extensive date search falls back to a copyright year and returns 1 January of that
year, so pages crawled in August were dated months too early: every later fact in them leaked into an
earlier month. Here a date is taken only from sources that state a full day, in a fixed order of
trust, and a year or year+month is never widened into a day. The crawl date (the WARC-Date of the
response) is the only fallback, and it is labelled as an upper bound on publication.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lxml.html import HtmlElement


from almanac.core.months import MONTH_NUMBERS

# Values of the article column ``date_source``, strongest first (the order the page is searched in).
DATE_SOURCES = ("feed", "html_meta", "json_ld", "url", "text", "crawl_date")
DATE_PRECISIONS = ("day", "upper_bound")
UNDATED_POLICIES = ("reject", "crawl_date")
# A day found in running text may be any date the article mentions, so only it is checked for lag.
WEAK_SOURCES = frozenset({"text"})

# Publish-date meta tags, most specific first; matched on name, property or itemprop (lower-cased).
# Modification dates (article:modified_time, dateModified) are left out: they are not publication.
META_NAMES = (
    "article:published_time",
    "og:article:published_time",
    "datepublished",
    "citation_publication_date",
    "dc.date.issued",
    "dcterms.issued",
    "dcterms.created",
    "dc.date.created",
    "dc.date",
    "pubdate",
    "publishdate",
    "publish-date",
    "publish_date",
    "parsely-pub-date",
    "sailthru.date",
    "date",
)
_META_RANK = {name: rank for rank, name in enumerate(META_NAMES)}
_MONTH = r"\b(?P<month_name>" + "|".join(sorted(MONTH_NUMBERS, key=len, reverse=True)) + r")\.?"
_NUMERIC_DAY = re.compile(r"^(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})(?![\d])")
_COMPACT_DAY = re.compile(r"^(?P<y>\d{4})(?P<m>\d{2})(?P<d>\d{2})$")
_YEAR_MONTH = re.compile(r"^(?P<y>\d{4})[-/.](?P<m>\d{1,2})$")
_YEAR = re.compile(r"^(?P<y>\d{4})$")
_WORDY_DAY = (
    re.compile(_MONTH + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>\d{4})\b", re.IGNORECASE),
    re.compile(r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+" + _MONTH + r",?\s+(?P<y>\d{4})\b", re.IGNORECASE),
)
_ISO_DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_URL_DAY = re.compile(r"/(?P<y>(?:19|20)\d{2})/(?P<m>\d{1,2})/(?P<d>\d{1,2})(?:/|$)")
_URL_MONTH = re.compile(r"/(?P<y>(?:19|20)\d{2})/(?P<m>\d{1,2})(?:/|$)")
# In running text only a date right after a byline cue is taken; other dates are what the story is about.
_TEXT_CUE = re.compile(r"\b(?:published|posted|updated|dated)\b", re.IGNORECASE)
_TEXT_CUE_WINDOW = 60
_TEXT_SCAN_CHARS = 20_000
_MIN_YEAR, _MAX_YEAR = 1900, 2100  # outside: a number that only looks like a year


@dataclass(frozen=True)
class DateFinding:
    """What a page or feed says about its publication day."""

    day: datetime | None = None  # UTC; set only when a source stated a full day
    source: str | None = None  # which of DATE_SOURCES ``day`` came from
    partial_sources: tuple[str, ...] = ()  # sources that gave only a year or a month (never a day)


@dataclass(frozen=True)
class DatePolicy:
    undated: str = "crawl_date"
    max_date_lag_days: int = 30

    def __post_init__(self) -> None:
        if self.undated not in UNDATED_POLICIES:
            raise ValueError(f"undated must be one of {UNDATED_POLICIES}, got {self.undated!r}")
        if self.max_date_lag_days < 0:
            raise ValueError("max_date_lag_days must be >= 0")


@dataclass(frozen=True)
class DateDecision:
    """The row's date, or why there is none; ``discarded`` says why a found day was not used."""

    publish_date: datetime | None  # None: reject the article (reason no_publish_date, see ``detail``)
    source: str
    precision: str
    discarded: str | None = None  # "after_crawl" | "too_early"
    detail: str = ""


def parse_date_value(value: str, keep_time: bool = False) -> tuple[datetime | None, str | None]:
    """A date string as ``(day, "day")``, or ``(None, "month" | "year")`` when it names no day.

    ``(None, None)``: not a date. Without ``keep_time`` the day is the calendar day the value states
    (the publisher's own), at midnight UTC; with it, the instant in UTC, a naive time taken as UTC
    (as news-please writes it).
    """
    text = value.strip()
    if not text:
        return None, None
    numeric = _NUMERIC_DAY.match(text) or _COMPACT_DAY.match(text)
    if numeric:
        day = _make_day(numeric.group("y"), numeric.group("m"), numeric.group("d"))
        if day is None:
            return None, None
        return (_with_time(text, day) if keep_time else day), "day"
    if _YEAR_MONTH.match(text):
        return None, "month" if _year_ok(text[:4]) else None
    if _YEAR.match(text):
        return None, "year" if _year_ok(text) else None
    wordy = _wordy_day(text)
    if wordy is not None:
        return wordy, "day"
    try:
        parsed = parsedate_to_datetime(text)  # RFC 2822, e.g. "Sat, 10 May 2025 08:00:00 GMT"
    except (TypeError, ValueError, IndexError):
        return None, None
    return (_utc(parsed) if keep_time else datetime(parsed.year, parsed.month, parsed.day, tzinfo=UTC)), "day"


def find_page_date(tree: HtmlElement | None, url: str) -> DateFinding:
    """The first full day in: meta tags, JSON-LD ``datePublished``, the URL path, a byline in the text."""
    partial: list[str] = []
    # Lazily, in order: a page with a meta tag never pays for the text scan.
    searches: tuple[tuple[str, Callable[[], list[str]]], ...] = (
        ("html_meta", lambda: _meta_values(tree)),
        ("json_ld", lambda: _json_ld_values(tree)),
        ("url", lambda: _url_values(url)),
        ("text", lambda: _text_values(tree)),
    )
    for source, values in searches:
        for value in values():
            day, precision = parse_date_value(value)
            if day is not None:
                return DateFinding(day, source, tuple(partial))
            if precision is not None and source not in partial:
                partial.append(source)
    return DateFinding(None, None, tuple(partial))


def decide_date(finding: DateFinding, crawl_date: datetime | None, policy: DatePolicy) -> DateDecision:
    """Apply the crawl-date cap, the lag limit for weak sources, and the undated policy."""
    discarded: str | None = None
    detail = "no full publication day in the article"
    if finding.day is not None and finding.source is not None:
        day = finding.day
        if crawl_date is not None and day > crawl_date:
            # Published after it was downloaded is impossible: the crawl date is all we know.
            discarded = "after_crawl"
            detail = f"{finding.source} date {day:%Y-%m-%d} is after the crawl date {crawl_date:%Y-%m-%d}"
        elif (
            crawl_date is not None
            and finding.source in WEAK_SOURCES
            and crawl_date - day > timedelta(days=policy.max_date_lag_days)
        ):
            discarded = "too_early"
            detail = (
                f"{finding.source} date {day:%Y-%m-%d} is more than {policy.max_date_lag_days} days "
                f"before the crawl date {crawl_date:%Y-%m-%d}"
            )
        else:
            return DateDecision(day, finding.source, "day")
    if policy.undated == "crawl_date" and crawl_date is not None:
        return DateDecision(crawl_date, "crawl_date", "upper_bound", discarded, detail)
    if crawl_date is None and policy.undated == "crawl_date":
        detail += "; no crawl date to fall back on"
    return DateDecision(None, finding.source or "crawl_date", "upper_bound", discarded, detail)


def _meta_values(tree: HtmlElement | None) -> list[str]:
    if tree is None:
        return []
    ranked: list[tuple[int, int, str]] = []
    for position, element in enumerate(tree.iter("meta", "time")):
        for attribute in ("property", "name", "itemprop"):
            key = (element.get(attribute) or "").strip().lower()
            if key in _META_RANK:
                # <time itemprop="datePublished" datetime=...> is microdata: as declared as a meta tag.
                value = element.get("content") or element.get("datetime") or ""
                ranked.append((_META_RANK[key], position, value))
                break
    return [value for _rank, _position, value in sorted(ranked)]


def _json_ld_values(tree: HtmlElement | None) -> list[str]:
    if tree is None:
        return []
    values: list[str] = []
    for script in tree.iter("script"):
        if (script.get("type") or "").strip().lower() != "application/ld+json":
            continue
        try:
            data = json.loads(script.text or "")
        except json.JSONDecodeError:
            continue  # broken JSON-LD is common; the other sources still apply
        values.extend(_date_published(data))
    return values


def _date_published(data: Any) -> Iterator[str]:
    """Every ``datePublished`` string in a JSON-LD document, depth first (``@graph`` lists included)."""
    if isinstance(data, dict):
        value = data.get("datePublished")
        if isinstance(value, str):
            yield value
        for key, child in data.items():
            if key != "datePublished":
                yield from _date_published(child)
    elif isinstance(data, list):
        for child in data:
            yield from _date_published(child)


def _url_values(url: str) -> list[str]:
    path = url.split("?", 1)[0].split("#", 1)[0]
    day = _URL_DAY.search(path)
    if day:
        return [f"{day.group('y')}-{day.group('m')}-{day.group('d')}"]
    month = _URL_MONTH.search(path)
    return [f"{month.group('y')}-{month.group('m')}"] if month else []  # a month: counted, never a day


def _text_values(tree: HtmlElement | None) -> list[str]:
    if tree is None:
        return []
    values = [element.get("datetime") or "" for element in tree.iter("time") if element.get("datetime")]
    body = tree.find("body")
    if body is None:
        return values
    pieces = body.xpath(
        ".//text()[not(ancestor::script) and not(ancestor::style) and not(ancestor::noscript)]"
    )
    text = " ".join(str(piece) for piece in pieces)[:_TEXT_SCAN_CHARS]
    for cue in _TEXT_CUE.finditer(text):
        window = text[cue.end() : cue.end() + _TEXT_CUE_WINDOW]
        day = _first_day_in(window)
        if day is not None:
            values.append(day)
    return values


def _first_day_in(window: str) -> str | None:
    """The earliest full-day expression in ``window`` (ISO or written out), if any."""
    matches = [match for pattern in (_ISO_DAY, *_WORDY_DAY) if (match := pattern.search(window))]
    return min(matches, key=lambda match: match.start()).group() if matches else None


def _wordy_day(text: str) -> datetime | None:
    for pattern in _WORDY_DAY:
        match = pattern.fullmatch(text.strip().rstrip("."))
        if match:
            month = MONTH_NUMBERS[match.group("month_name").lower()]
            return _make_day(match.group("y"), str(month), match.group("d"))
    return None


def _make_day(year: str, month: str, day: str) -> datetime | None:
    if not _year_ok(year):
        return None
    try:
        return datetime(int(year), int(month), int(day), tzinfo=UTC)
    except ValueError:
        return None


def _with_time(text: str, day: datetime) -> datetime:
    """The full timestamp when the value has a valid ISO time, else midnight UTC of the stated day."""
    try:
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00").replace("/", "-"))
    except ValueError:
        return day
    return _utc(parsed)


def _utc(value: datetime) -> datetime:
    return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)


def _year_ok(year: str) -> bool:
    return _MIN_YEAR <= int(year) <= _MAX_YEAR
