"""Resolve WCEP event source links to article text: the CC-News corpus first, then (opt-in) the live web.

Links match corpus URLs canonically, ignoring ``www.`` and http/https. Only with ``NewsConfig.fetch`` does
a :class:`Fetcher` get a page itself, as a polite crawler: own user agent, robots.txt, timeouts, bounded
retries, a size cap, and a deadline for the whole run. A link that yields no article is a reject row with
its reason.

robots.txt follows RFC 9309: 200 gives rules; a 4xx answer (none published) allows everything; a 5xx
answer or an unreachable server disallows everything for the run. Redirects are followed one hop at a
time, each target checked against its own host's robots.txt before it is requested.
"""

from __future__ import annotations

import re
import time
import urllib.robotparser
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any, NamedTuple
from urllib.parse import urljoin, urlsplit, urlunsplit

import pyarrow as pa
import requests
from requests.exceptions import ChunkedEncodingError

from almanac.ccnews.extract import decode_html, detect_language, extract_article
from almanac.core.download import DownloadConfig, Sleep, backoff_delay, parse_retry_after
from almanac.core.ids import canonical_url, content_id
from almanac.core.record_errors import RECORD_ERROR, describe_error, reraise_infrastructure
from almanac.core.rejects import StageLedger
from almanac.core.schemas import TIMESTAMP, table_from_rows
from almanac.core.step import Drop, Step, apply_step, fan_out
from almanac.wcep.responses import CHUNK_BYTES as _CHUNK_BYTES
from almanac.wcep.responses import Refused as _Refused
from almanac.wcep.responses import read_capped as _read_capped

WCEP_NEWS_SCHEMA = pa.schema(
    [
        pa.field("event_id", pa.string(), nullable=False),
        pa.field("url", pa.string(), nullable=False),  # canonical URL as linked from the event
        pa.field("article_id", pa.string(), nullable=False),  # corpus id, or content_id(url, text)
        pa.field("title", pa.string()),
        pa.field("text", pa.string(), nullable=False),
        pa.field("publish_date", TIMESTAMP),
        pa.field("origin", pa.string(), nullable=False),  # "ccnews" | "fetched"
    ]
)

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml"})
# Types that say nothing about the body; such a body is accepted when it starts like an HTML document.
_UNTYPED = frozenset({"", "application/octet-stream", "binary/octet-stream"})
_HTML_START = re.compile(rb"^\s*(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b", re.I | re.S)
_CHARSET = re.compile(r"charset\s*=\s*[\"']?([\w.:-]+)", re.IGNORECASE)
_ACCEPT = "text/html,application/xhtml+xml,*/*;q=0.1"
_ROBOTS_MAX_BYTES = 500_000
_EVENT_COLUMNS = ("id", "source_urls", "source", "summary")
_CORPUS_COLUMNS = ("id", "url", "title", "text", "publish_date")  # publish_date is never null


@dataclass(frozen=True)
class NewsConfig:
    fetch: bool = False  # default: corpus only, no network
    user_agent: str = "almanac/0.1 (research dataset builder)"
    timeout_s: float = 20.0
    retries: int = 3  # attempts after the first, on connection errors, 429 and 5xx
    respect_robots: bool = True
    max_bytes: int = 5_000_000  # decoded page size above which the page is not read
    min_words: int = 50
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 30.0  # also caps a server's Retry-After
    # Wall-clock budget of one run's fetching (from the Fetcher's start): once spent, every URL not yet
    # fetched is rejected ``run_deadline`` instead of being requested.
    max_run_seconds: float = 3600.0

    def __post_init__(self) -> None:
        if self.retries < 0 or self.timeout_s <= 0 or self.max_bytes <= 0 or self.min_words < 0:
            raise ValueError(f"wcep_news: retries/min_words must be >= 0, timeout/max_bytes > 0: {self}")
        if self.max_run_seconds <= 0:
            raise ValueError(f"wcep_news: max_run_seconds must be > 0: {self}")


@dataclass(frozen=True)
class FetchResult:
    """A fetched article (``reason`` None) or why there is none (``reason`` and ``detail``)."""

    url: str
    reason: str | None = None
    detail: str = ""
    title: str | None = None
    text: str = ""
    publish_date: datetime | None = None
    language: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None


class _Transient(NamedTuple):  # a failure another attempt may cure
    reason: str
    retry_after_s: float | None = None


class _Robots(NamedTuple):
    """One host's robots.txt: parsed rules, or one verdict for every path with the reason for it."""

    rules: urllib.robotparser.RobotFileParser | None
    allow_all: bool = True
    why: str = ""


_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_MAX_REDIRECTS = 10


class Fetcher:
    """Fetches news pages over HTTP(S) and extracts their article; never raises for a bad page."""

    def __init__(
        self,
        config: NewsConfig,
        *,
        session: requests.Session | None = None,
        sleep: Sleep = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.config = config
        self._owns_session = session is None
        self._session = session if session is not None else requests.Session()
        self._sleep = sleep
        self._clock = clock
        self._deadline = clock() + config.max_run_seconds
        # Only the backoff fields matter: the delays come from the shared download policy.
        self._backoff = DownloadConfig(0, config.backoff_initial_s, config.backoff_max_s)
        self._robots: dict[str, _Robots] = {}

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self._owns_session:
            self._session.close()

    def fetch(self, url: str) -> FetchResult:
        """The article at ``url`` or why there is none; whatever one page raises is its ``record_error``."""
        try:
            return self._fetch(url)
        except Exception as error:  # a page no check foresaw (a parser's RecursionError ...)
            reraise_infrastructure(error)
            return FetchResult(url, RECORD_ERROR, describe_error(error))

    def _fetch(self, url: str) -> FetchResult:
        if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
            return FetchResult(url, "fetch_failed", "not an http(s) URL")
        if self._remaining() <= 0:
            return self._past_deadline(url)
        refusal = self._robots_refusal(url)
        if refusal is not None:
            return FetchResult(url, "robots_disallowed", refusal)
        failures = 0
        while True:
            outcome = self._attempt(url)
            if isinstance(outcome, FetchResult):
                return outcome
            failures += 1
            if failures > self.config.retries:
                detail = f"gave up after {failures} attempts; last: {outcome.reason}"
                return FetchResult(url, "fetch_failed", detail)
            delay = backoff_delay(self._backoff, failures, outcome.retry_after_s)
            if delay >= self._remaining():  # the wait alone would outlast the run's budget
                return self._past_deadline(url, f"; last attempt: {outcome.reason}")
            self._sleep(delay)

    def allowed(self, url: str) -> bool:
        """robots.txt verdict, its file read once per scheme+host and cached."""
        return self._robots_refusal(url) is None

    def _robots_refusal(self, url: str) -> str | None:
        """Why robots.txt refuses ``url`` to our agent, or None (also when robots are not respected)."""
        if not self.config.respect_robots:
            return None
        parts = urlsplit(url)
        site = f"{parts.scheme}://{parts.netloc}"
        if site not in self._robots:
            self._robots[site] = self._read_robots(site)
        robots = self._robots[site]
        if robots.rules is None:
            return None if robots.allow_all else f"{site}/robots.txt {robots.why}: disallow all (RFC 9309)"
        if robots.rules.can_fetch(self.config.user_agent, url):
            return None
        return f"{site}/robots.txt disallows {self.config.user_agent!r}"

    def _read_robots(self, site: str) -> _Robots:
        # One attempt, redirects followed (RFC 9309 asks for at least five hops).
        try:
            with self._get(f"{site}/robots.txt", redirects=True) as response:
                body, _ = _read_capped(response, _ROBOTS_MAX_BYTES)  # the rest is ignored, as by Google
                status = response.status_code
        except requests.TooManyRedirects:
            return _Robots(None, True, "redirects too often")  # RFC 9309: as if unavailable (4xx)
        except requests.RequestException as error:
            return _Robots(None, False, f"is unreachable ({type(error).__name__})")
        if 400 <= status < 500:
            return _Robots(None, True, f"answered HTTP {status}")
        if status != 200:
            return _Robots(None, False, f"answered HTTP {status}")
        rules = urllib.robotparser.RobotFileParser(f"{site}/robots.txt")
        rules.parse(body.decode("utf-8", "replace").splitlines())
        return _Robots(rules)

    def _remaining(self) -> float:
        return self._deadline - self._clock()

    def _past_deadline(self, url: str, more: str = "") -> FetchResult:
        return FetchResult(
            url, "run_deadline", f"the run's fetch budget of {self.config.max_run_seconds:g} s is spent{more}"
        )

    def _attempt(self, url: str) -> FetchResult | _Transient:
        try:
            with self._follow(url) as response:
                if isinstance(response, FetchResult):
                    return response
                status = response.status_code
                if status != 200:
                    _read_capped(response, _CHUNK_BYTES)  # an error page read is a connection kept
                    if status == 429 or 500 <= status < 600:
                        return _Transient(
                            f"HTTP {status}", parse_retry_after(response.headers.get("Retry-After"))
                        )
                    return FetchResult(url, "fetch_failed", f"HTTP {status} {response.reason or ''}".rstrip())
                content_type = response.headers.get("Content-Type", "")
                media_type = content_type.split(";")[0].strip().lower()
                if media_type not in _HTML_TYPES | _UNTYPED:
                    return FetchResult(url, "not_html", f"Content-Type {content_type}")
                body, more = _read_capped(response, self.config.max_bytes)
                final_url = response.url or url
        except requests.exceptions.SSLError as error:  # a broken certificate stays broken
            return FetchResult(url, "fetch_failed", f"TLS error: {error}")
        except (requests.ConnectionError, requests.Timeout, ChunkedEncodingError) as error:
            return _Transient(f"{type(error).__name__}: {error}")
        except requests.RequestException as error:
            return FetchResult(url, "fetch_failed", f"{type(error).__name__}: {error}")
        if more:
            return FetchResult(url, "too_large", f"body exceeds {self.config.max_bytes} bytes")
        if media_type in _UNTYPED and not _HTML_START.match(body[:2048]):
            return FetchResult(url, "not_html", f"Content-Type {content_type or 'absent'}; body is not HTML")
        return self._article(url, final_url, content_type, body)

    def _article(self, url: str, final_url: str, content_type: str, body: bytes) -> FetchResult:
        charset = _CHARSET.search(content_type)
        try:
            html = decode_html(body, charset.group(1).lower() if charset else None)
        except UnicodeDecodeError as error:
            return FetchResult(url, "no_extractable_text", f"cannot decode the page: {error}")
        extracted = extract_article(html, final_url)
        if extracted is None:
            return FetchResult(url, "no_extractable_text", "no article text found in the page")
        words = len(extracted.text.split())
        if words < self.config.min_words:
            return FetchResult(url, "too_short", f"{words} words < {self.config.min_words}")
        return FetchResult(
            url,
            title=extracted.title,
            text=extracted.text,
            publish_date=extracted.publish_date,
            language=detect_language(extracted.text),
        )

    def _follow(self, url: str) -> requests.Response | _Refused[FetchResult]:
        """The response at the end of ``url``'s redirects, each hop's target checked against its own
        host's robots.txt before it is requested (requests would follow them all unasked)."""
        current = url
        for _ in range(_MAX_REDIRECTS + 1):
            response = self._get(current)
            location = response.headers.get("Location")
            if response.status_code not in _REDIRECTS or not location:
                return response
            _read_capped(response, _CHUNK_BYTES)
            response.close()
            current = urljoin(current, location)
            if urlsplit(current).scheme not in ("http", "https") or not urlsplit(current).hostname:
                return _Refused(FetchResult(url, "fetch_failed", f"redirected to {current}: not http(s)"))
            refusal = self._robots_refusal(current)
            if refusal is not None:
                return _Refused(FetchResult(url, "robots_disallowed", f"redirected to {current}; {refusal}"))
            if self._remaining() <= 0:
                return _Refused(self._past_deadline(url, f" (while following redirects to {current})"))
        return _Refused(FetchResult(url, "fetch_failed", f"more than {_MAX_REDIRECTS} redirects"))

    def _get(self, url: str, redirects: bool = False) -> requests.Response:
        headers = {"User-Agent": self.config.user_agent, "Accept": _ACCEPT}
        # No request may run past the run's deadline (but each has at least a second to answer).
        timeout = max(1.0, min(self.config.timeout_s, self._remaining()))
        return self._session.get(
            url, headers=headers, stream=True, timeout=timeout, allow_redirects=redirects
        )


def match_key(url: str) -> str:
    """Canonical URL with scheme and a leading ``www.`` ignored: how an event link finds a corpus row."""
    parts = urlsplit(canonical_url(url))
    return urlunsplit(("https", parts.netloc.removeprefix("www."), parts.path, parts.query, ""))


def resolve_event_sources(
    events: pa.Table,
    corpus: pa.Table,
    config: NewsConfig,
    fetcher: Fetcher | None,
    ledger: StageLedger,
) -> pa.Table:
    """One WCEP_NEWS_SCHEMA row per (event, source URL) resolved to article text.

    Unit of account (almanac.core.step.fan_out): an item is one distinct (event, canonical source URL)
    pair, or a link-less event (rejected as ``no_source_link``). Unresolved pairs are rejected as
    ``not_in_corpus`` (fetching disabled) or with the fetcher's reason. Rows come ordered by event id,
    then link order; a URL shared by several events is fetched once. With ``config.fetch`` on and no
    ``fetcher``, one is made and closed.
    """
    _require(events, _EVENT_COLUMNS, "events")
    _require(corpus, _CORPUS_COLUMNS, "corpus")
    listed = events.select(list(_EVENT_COLUMNS)).sort_by("id").to_pylist()
    pairs = fan_out(listed, _links, ledger, itemgetter("id"), itemgetter("id"))
    articles = corpus_articles(corpus, {match_key(url) for _, url in pairs})
    fetched: dict[str, dict[str, Any] | FetchResult] = {}
    with ExitStack() as stack:
        if config.fetch and fetcher is None:
            fetcher = stack.enter_context(Fetcher(config))
        active = fetcher if config.fetch else None

        def resolve(pair: tuple[str, str]) -> dict[str, Any] | Drop:
            event_id, url = pair
            found: dict[str, Any] | FetchResult | None = articles.get(match_key(url))
            if found is None and active is not None:
                if url not in fetched:
                    fetched[url] = _fetched_article(url, active.fetch(url), ledger)
                found = fetched[url]
            if found is None:
                return Drop("not_in_corpus", url)
            if isinstance(found, FetchResult):
                return Drop(found.reason or "", f"{url}: {found.detail}")
            ledger.count("resolved_by", found["origin"])
            return {"event_id": event_id, "url": url, **found}

        step = Step(resolve, lambda pair: content_id(*pair), lambda pair: pair[0])
        rows = apply_step(pairs, step, ledger, desc="wcep_news", chained=True)
    return table_from_rows(rows, WCEP_NEWS_SCHEMA)


def _links(event: dict[str, Any]) -> list[tuple[str, str]] | Drop:
    """An event's distinct (event id, canonical source URL) pairs; an event without one is rejected."""
    urls = list(dict.fromkeys(canonical_url(url) for url in event["source_urls"] or []))
    pairs = [(str(event["id"]), url) for url in urls]
    return pairs or Drop("no_source_link", f"{event['source']}: {event['summary'][:160]}")


def _require(table: pa.Table, names: tuple[str, ...], label: str) -> None:
    missing = sorted(set(names) - set(table.column_names))
    if missing:
        raise ValueError(f"wcep_news: the {label} table lacks columns {missing}")


def _fetched_article(url: str, result: FetchResult, ledger: StageLedger) -> dict[str, Any] | FetchResult:
    if not result.ok:
        return result
    ledger.count("fetched_language", result.language or "unknown")
    article = {"title": result.title, "text": result.text, "publish_date": result.publish_date}
    return {"article_id": content_id(url, result.text), **article, "origin": "fetched"}


def corpus_articles(corpus: pa.Table, keys: set[str]) -> dict[str, dict[str, Any]]:
    """Corpus articles whose URL matches a key; of several, the earliest published, then lowest id."""
    indices = [index for index, url in enumerate(corpus.column("url").to_pylist()) if match_key(url) in keys]
    found: dict[str, dict[str, Any]] = {}
    for row in corpus.select(list(_CORPUS_COLUMNS)).take(pa.array(indices, pa.int64())).to_pylist():
        key = match_key(row.pop("url"))
        best = found.get(key)
        if best is None or (row["publish_date"], row["id"]) < (best["publish_date"], best["article_id"]):
            found[key] = {"article_id": row.pop("id"), **row, "origin": "ccnews"}
    return found
