"""wcep_news: event source links resolved from the CC-News corpus, else fetched from a loopback server."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyarrow as pa
import pytest
import requests

from almanac.core.ids import canonical_url, content_id, source_domain
from almanac.core.rejects import StageLedger
from almanac.core.schemas import ARTICLE_SCHEMA, table_from_rows
from almanac.wcep.days import WCEP_EVENT_SCHEMA
from almanac.wcep.news import WCEP_NEWS_SCHEMA, Fetcher, NewsConfig, resolve_event_sources
from tests.support.downloads import SleepRecorder, put, server, sleep
from tests.support.http_fixture_server import FixtureServer

__all__ = ["server", "sleep"]  # pytest fixtures used by name

UA = "almanac-test/0.1 (research dataset builder)"
FETCH = NewsConfig(fetch=True, user_agent=UA, timeout_s=5.0, retries=2, backoff_max_s=10.0)

PARAGRAPHS = [
    "Engineers in the river town of Dunmere finished repairs to the old stone bridge on Thursday morning,"
    " reopening the only road crossing for the first time since the spring floods washed part of it away.",
    "The regional transport office said lorries above twelve tonnes would still be kept off the bridge"
    " until a second inspection later this month confirms that the new supports are carrying the load.",
    "Shopkeepers on the east bank told reporters that trade had fallen by almost half during the closure,"
    " because most of their customers live across the water and had stopped making the long detour.",
    "The council promised a public meeting next week to explain how the repair was paid for and what"
    " will be done to protect the riverbanks before the autumn rains arrive in the valley.",
]
TITLE = "Dunmere bridge reopens after flood repairs"


def article_page(title: str = TITLE, paragraphs: list[str] = PARAGRAPHS, charset: str = "utf-8") -> str:
    body = "\n".join(f"<p>{text}</p>" for text in paragraphs)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="{charset}"><title>{title}</title>
<meta property="og:title" content="{title}">
<meta property="article:published_time" content="2025-04-03T08:00:00Z"></head>
<body><nav><a href="/">Home</a> <a href="/world">World</a></nav>
<article><h1>{title}</h1>
{body}
</article><footer>Copyright The Meridian Herald</footer></body></html>
"""


def event(event_id: str, urls: list[str], summary: str = "Something happens.") -> dict[str, Any]:
    return {
        "id": event_id,
        "date": date(2025, 4, 3),
        "category": "Disasters and accidents",
        "story_path": ["Dunmere floods"],
        "summary": summary,
        "source_urls": urls,
        "source_names": [f"Source {i}" for i in range(len(urls))],
        "origin": "portal",
        "source": "sample:Portal:Current events/2025 April 3",
    }


def events_table(*rows: dict[str, Any]) -> pa.Table:
    return table_from_rows(rows, WCEP_EVENT_SCHEMA)


def corpus_row(url: str, text: str, published: datetime, title: str = "Corpus title") -> dict[str, Any]:
    url = canonical_url(url)
    return {
        "id": content_id(url, text),
        "url": url,
        "source_domain": source_domain(url),
        "title": title,
        "text": text,
        "publish_date": published,
        "publish_month": published.strftime("%Y-%m"),
        "date_source": "html_meta",
        "date_precision": "day",
        "language": "en",
        "word_count": len(text.split()),
        "crawl_date": published,
        "source_format": "warc",
        "source_file": "CC-NEWS-20250403.warc.gz",
        "source_offset": 0,
        "charset": None,
        "truncated": False,
    }


EMPTY_CORPUS = table_from_rows([], ARTICLE_SCHEMA)


def resolve(
    events: pa.Table, config: NewsConfig, fetcher: Fetcher | None, corpus: pa.Table = EMPTY_CORPUS
) -> tuple[list[dict[str, Any]], StageLedger]:
    ledger = StageLedger("wcep_news")
    table = resolve_event_sources(events, corpus, config, fetcher, ledger)
    assert table.schema == WCEP_NEWS_SCHEMA
    ledger.check_balance()
    return table.to_pylist(), ledger


def reasons(ledger: StageLedger) -> list[tuple[str, str]]:
    return [(reject.reason, reject.detail) for reject in ledger.rejects]


@pytest.fixture
def fetcher(sleep: SleepRecorder) -> Iterator[Fetcher]:
    with Fetcher(FETCH, sleep=sleep) as running:
        yield running


def test_corpus_hit_by_canonical_url_ignoring_tracking_www_and_scheme() -> None:
    text = " ".join(PARAGRAPHS)
    early = corpus_row(
        "https://www.meridianherald.example/2025/04/03/bridge?a=1&b=2", text, datetime(2025, 4, 3, tzinfo=UTC)
    )
    # The same story again at the bare host, published a day later: the earlier copy is the one used.
    later = corpus_row(
        "https://meridianherald.example/2025/04/03/bridge?b=2&a=1",
        text + " Updated.",
        datetime(2025, 4, 4, tzinfo=UTC),
    )
    other = corpus_row(
        "https://tidewaterpost.example/unrelated", "Other text.", datetime(2025, 4, 3, tzinfo=UTC)
    )
    corpus = table_from_rows([early, other, later], ARTICLE_SCHEMA)
    link = "http://MeridianHerald.example/2025/04/03/bridge?utm_source=feed&b=2&a=1#comments"
    rows, ledger = resolve(events_table(event("e1", [link])), NewsConfig(), None, corpus)

    assert rows == [
        {
            "event_id": "e1",
            "url": "http://meridianherald.example/2025/04/03/bridge?a=1&b=2",
            "article_id": early["id"],
            "title": "Corpus title",
            "text": text,
            "publish_date": datetime(2025, 4, 3, tzinfo=UTC),
            "origin": "ccnews",
        }
    ]
    assert (ledger.items_in, ledger.items_out, ledger.rejects) == (1, 1, [])
    assert ledger.extra["resolved_by"] == {"ccnews": 1}


def test_fetch_disabled_rejects_missing_links_without_touching_the_network(
    server: FixtureServer,
    fetcher: Fetcher,
) -> None:
    url = put(server, "/news/bridge.html", article_page().encode())
    rows, ledger = resolve(events_table(event("e1", [url])), NewsConfig(fetch=False), fetcher)
    assert rows == []
    assert reasons(ledger) == [("not_in_corpus", canonical_url(url))]
    assert ledger.rejects[0].source == "e1"
    assert server.requests() == []


def test_fetched_page_gives_text_title_and_date(server: FixtureServer, fetcher: Fetcher) -> None:
    url = put(server, "/news/bridge.html", article_page().encode())
    rows, ledger = resolve(events_table(event("e1", [url])), FETCH, fetcher)

    assert len(rows) == 1, reasons(ledger)
    row = rows[0]
    assert row["text"] == "\n".join([TITLE, *PARAGRAPHS])  # the article's heading kept; nav and footer not
    assert row["title"] == TITLE
    assert row["publish_date"] == datetime(2025, 4, 3, tzinfo=UTC)
    assert row["origin"] == "fetched"
    assert row["url"] == canonical_url(url)
    assert row["article_id"] == content_id(canonical_url(url), row["text"])
    page_gets = server.requests("/news/bridge.html")
    assert len(page_gets) == 1 and page_gets[0].headers["user-agent"] == UA
    assert server.requests("/robots.txt")[0].headers["user-agent"] == UA  # 404: everything allowed
    assert ledger.extra["fetched_language"] == {"en": 1}


def test_http_404_is_fetch_failed(server: FixtureServer, fetcher: Fetcher, sleep: SleepRecorder) -> None:
    rows, ledger = resolve(events_table(event("e1", [server.url("/gone.html")])), FETCH, fetcher)
    assert rows == []
    [(reason, detail)] = reasons(ledger)
    assert reason == "fetch_failed" and "HTTP 404" in detail and server.url("/gone.html") in detail
    assert server.count("/gone.html") == 1 and sleep.calls == []  # a 404 is not retried


def test_503_is_retried_honouring_retry_after(
    server: FixtureServer, fetcher: Fetcher, sleep: SleepRecorder
) -> None:
    url = put(server, "/news/bridge.html", article_page().encode())
    server.fail("/news/bridge.html", status=503, times=1, retry_after="7")
    rows, _ = resolve(events_table(event("e1", [url])), FETCH, fetcher)
    assert [row["title"] for row in rows] == [TITLE]
    assert server.count("/news/bridge.html") == 2
    assert sleep.calls == [7.0]


def test_persistent_5xx_gives_up_after_the_retry_budget(
    server: FixtureServer, fetcher: Fetcher, sleep: SleepRecorder
) -> None:
    url = put(server, "/news/bridge.html", article_page().encode())
    server.fail("/news/bridge.html", status=500, times=5, retry_after="60")
    _, ledger = resolve(events_table(event("e1", [url])), FETCH, fetcher)
    [(reason, detail)] = reasons(ledger)
    assert reason == "fetch_failed" and "gave up after 3 attempts; last: HTTP 500" in detail
    assert server.count("/news/bridge.html") == 3  # retries=2
    assert sleep.calls == [10.0, 10.0]  # Retry-After capped by backoff_max_s


def test_connection_refused_is_retried_then_fetch_failed(fetcher: Fetcher, sleep: SleepRecorder) -> None:
    with socket.socket() as probe:  # a port nothing listens on once the probe is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    events = events_table(event("e1", [f"http://127.0.0.1:{port}/a.html"]))
    # RFC 9309: an unreachable robots.txt disallows everything, so the page is never tried.
    _, ledger = resolve(events, FETCH, fetcher)
    [(reason, detail)] = reasons(ledger)
    assert reason == "robots_disallowed" and "unreachable (ConnectionError)" in detail
    assert sleep.calls == []
    ignoring = replace(FETCH, respect_robots=False)
    with Fetcher(ignoring, sleep=sleep) as blind:
        _, ledger = resolve(events, ignoring, blind)
    [(reason, detail)] = reasons(ledger)
    assert reason == "fetch_failed" and "ConnectionError" in detail
    assert len(sleep.calls) == 2 and all(0.0 <= delay <= 2.0 for delay in sleep.calls)  # full jitter


def test_robots_disallowed_path_is_never_requested(server: FixtureServer, fetcher: Fetcher) -> None:
    put(server, "/robots.txt", b"User-agent: *\nDisallow: /private/\n")
    hidden = put(server, "/private/bridge.html", article_page().encode())
    public = put(server, "/news/bridge.html", article_page().encode())
    rows, ledger = resolve(events_table(event("e1", [hidden, public])), FETCH, fetcher)

    assert [row["url"] for row in rows] == [canonical_url(public)]
    [(reason, detail)] = reasons(ledger)
    assert reason == "robots_disallowed" and canonical_url(hidden) in detail
    assert server.count("/private/bridge.html") == 0
    assert server.count("/robots.txt") == 1  # read once for the host, then cached


def test_robots_rules_for_our_agent_and_403_robots(server: FixtureServer, sleep: SleepRecorder) -> None:
    put(server, "/robots.txt", b"User-agent: otherbot\nDisallow:\n\nUser-agent: almanac-test\nDisallow: /\n")
    url = put(server, "/news/bridge.html", article_page().encode())
    with Fetcher(FETCH, sleep=sleep) as fetcher:
        assert fetcher.fetch(url).reason == "robots_disallowed"
    ignoring = NewsConfig(fetch=True, user_agent=UA, respect_robots=False)
    with Fetcher(ignoring, sleep=sleep) as fetcher:
        assert fetcher.fetch(url).ok
    server.fail("/robots.txt", status=503)  # RFC 9309: a server error disallows everything
    with Fetcher(FETCH, sleep=sleep) as fetcher:
        result = fetcher.fetch(url)
        assert result.reason == "robots_disallowed" and "answered HTTP 503: disallow all" in result.detail
    assert server.count("/news/bridge.html") == 1  # only the fetcher told to ignore robots.txt asked
    server.fail("/robots.txt", status=403)  # RFC 9309: a 4xx means no robots.txt, everything allowed
    with Fetcher(FETCH, sleep=sleep) as fetcher:
        assert fetcher.fetch(url).ok


def test_body_that_is_not_html_is_not_html(server: FixtureServer, fetcher: Fetcher) -> None:
    url = put(server, "/report.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog >>\nendobj\n")
    _, ledger = resolve(events_table(event("e1", [url])), FETCH, fetcher)
    [(reason, detail)] = reasons(ledger)
    assert reason == "not_html" and "application/octet-stream" in detail


@pytest.fixture
def typed_session() -> Iterator[tuple[requests.Session, dict[str, str]]]:
    """A session that sees the Content-Type set per path here (the fixture server sends octet-stream)."""
    types: dict[str, str] = {}

    def retype(response: requests.Response, *args: Any, **kwargs: Any) -> None:
        path = urlsplit(response.url).path
        if path in types:
            response.headers["Content-Type"] = types[path]

    with requests.Session() as session:
        session.hooks["response"].append(retype)
        yield session, types


def test_declared_content_type_decides(
    server: FixtureServer,
    sleep: SleepRecorder,
    typed_session: tuple[requests.Session, dict[str, str]],
) -> None:
    session, types = typed_session
    latin = article_page(paragraphs=[*PARAGRAPHS[:3], PARAGRAPHS[3] + " Café owners agreed."], charset="")
    pages = {
        "/latin.html": (latin.encode("latin-1"), "text/html; charset=ISO-8859-1"),
        "/feed.json": (article_page().encode(), "application/json"),  # HTML-looking, but declared JSON
    }
    for path, (data, content_type) in pages.items():
        put(server, path, data)
        types[path] = content_type
    with Fetcher(FETCH, session=session, sleep=sleep) as fetcher:
        latin_result = fetcher.fetch(server.url("/latin.html"))
        json_result = fetcher.fetch(server.url("/feed.json"))
    assert latin_result.ok and latin_result.text.endswith("Café owners agreed.")
    assert (json_result.reason, json_result.detail) == ("not_html", "Content-Type application/json")


def test_page_without_article_text(server: FixtureServer, fetcher: Fetcher) -> None:
    page = "<html><head><title>Index</title></head><body><nav><a href='/a'>A</a> <a href='/b'>B</a></nav></body></html>"
    url = put(server, "/index.html", page.encode())
    _, ledger = resolve(events_table(event("e1", [url])), FETCH, fetcher)
    assert [reason for reason, _ in reasons(ledger)] == ["no_extractable_text"]


def test_short_article_is_too_short(server: FixtureServer, fetcher: Fetcher) -> None:
    url = put(server, "/brief.html", article_page(paragraphs=PARAGRAPHS[:1]).encode())
    _, ledger = resolve(events_table(event("e1", [url])), FETCH, fetcher)
    words = len(TITLE.split()) + len(PARAGRAPHS[0].split())  # 6 + 35: the heading is article text
    assert reasons(ledger) == [("too_short", f"{canonical_url(url)}: {words} words < 50")]


def test_oversized_page_is_too_large(server: FixtureServer, sleep: SleepRecorder) -> None:
    padding = "<!-- " + "x" * 20_000 + " -->"
    url = put(server, "/huge.html", (article_page() + padding).encode())
    small = NewsConfig(fetch=True, user_agent=UA, max_bytes=8_000)
    with Fetcher(small, sleep=sleep) as fetcher:
        result = fetcher.fetch(url)
        assert (result.reason, result.detail) == ("too_large", "body exceeds 8000 bytes")
        assert fetcher.fetch(put(server, "/ok.html", article_page().encode())).ok  # under the cap


def test_mixed_run_balances_orders_rows_and_fetches_shared_links_once(
    server: FixtureServer, fetcher: Fetcher
) -> None:
    text = " ".join(PARAGRAPHS)
    in_corpus = "https://tidewaterpost.example/2025/04/03/bridge"
    corpus = table_from_rows([corpus_row(in_corpus, text, datetime(2025, 4, 3, tzinfo=UTC))], ARTICLE_SCHEMA)
    page = put(server, "/news/bridge.html", article_page().encode())
    events = events_table(
        event("e3", [page, server.url("/gone.html")]),
        event("e1", [], summary="A portal bullet whose source link was lost."),
        event("e2", [in_corpus, page, page + "?utm_source=x"]),  # the last is the same page again
    )
    rows, ledger = resolve(events, FETCH, fetcher, corpus)

    assert [(row["event_id"], row["origin"]) for row in rows] == [
        ("e2", "ccnews"),
        ("e2", "fetched"),
        ("e3", "fetched"),
    ]
    assert rows[1]["article_id"] == rows[2]["article_id"]
    assert server.count("/news/bridge.html") == 1
    # e1: 1 link-less event; e2: 2 distinct links; e3: 2 links.
    assert (ledger.items_in, ledger.items_out, len(ledger.rejects)) == (5, 3, 2)
    assert ledger.rejected_by_reason == {"fetch_failed": 1, "no_source_link": 1}
    no_link = next(reject for reject in ledger.rejects if reject.reason == "no_source_link")
    assert no_link.id == "e1" and "A portal bullet whose source link was lost." in no_link.detail
    assert ledger.extra["resolved_by"] == {"ccnews": 1, "fetched": 2}

    again, _ = resolve(events.take([2, 0, 1]), FETCH, fetcher, corpus)
    assert again == rows  # input row order does not matter


def test_fetch_enabled_without_a_fetcher_makes_its_own(server: FixtureServer) -> None:
    url = put(server, "/news/bridge.html", article_page().encode())
    rows, _ = resolve(events_table(event("e1", [url, "ftp://files.example/a.txt"])), FETCH, None)
    assert [row["origin"] for row in rows] == ["fetched"]


def test_missing_columns_are_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"events table lacks columns \['source_urls'\]"):
        resolve_event_sources(
            pa.table({"id": ["e1"], "source": ["s"], "summary": ["x"]}),
            EMPTY_CORPUS,
            NewsConfig(),
            None,
            StageLedger("wcep_news"),
        )


# -- redirects, robots.txt status codes and the run deadline (issue 15) -------------------------------


class _Redirector(http.server.BaseHTTPRequestHandler):
    """127.0.0.1 server answering every path with a redirect to ``target`` (robots.txt: allow all)."""

    target = ""

    def do_GET(self) -> None:
        if self.path == "/robots.txt":
            body = b"User-agent: *\nDisallow:\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        self.send_response(302)
        self.send_header("Location", self.target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def redirector() -> Iterator[tuple[http.server.ThreadingHTTPServer, type[_Redirector]]]:
    handler = type("Redirect", (_Redirector,), {})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield httpd, handler
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_redirect_to_another_host_checks_that_hosts_robots(
    server: FixtureServer,
    redirector: tuple[http.server.ThreadingHTTPServer, type[_Redirector]],
    sleep: SleepRecorder,
) -> None:
    httpd, handler = redirector
    put(server, "/robots.txt", b"User-agent: *\nDisallow: /private/\n")
    handler.target = put(server, "/private/bridge.html", article_page().encode())
    start = f"http://127.0.0.1:{httpd.server_address[1]}/story"
    with Fetcher(FETCH, sleep=sleep) as fetcher:
        result = fetcher.fetch(start)
    assert result.reason == "robots_disallowed"
    assert f"redirected to {handler.target}" in result.detail and "disallows" in result.detail
    assert server.count("/robots.txt") == 1 and server.count("/private/bridge.html") == 0
    # Redirected to an allowed page on that host: fetched, and its text is the article's.
    handler.target = put(server, "/news/bridge.html", article_page().encode())
    with Fetcher(FETCH, sleep=sleep) as fetcher:
        assert fetcher.fetch(start).title == TITLE
    assert server.count("/news/bridge.html") == 1


def test_robots_5xx_disallows_the_host_and_4xx_allows_it(server: FixtureServer, sleep: SleepRecorder) -> None:
    url = put(server, "/news/bridge.html", article_page().encode())
    for status, ok in ((500, False), (503, False), (404, True), (401, True)):
        server.fail("/robots.txt", status=status)
        with Fetcher(FETCH, sleep=sleep) as fetcher:
            result = fetcher.fetch(url)
            assert result.ok is ok, status
            assert fetcher.fetch(url).ok is ok  # the verdict is cached for the run: no second read
    assert server.count("/robots.txt") == 4
    assert server.count("/news/bridge.html") == 4  # the two allowed runs, twice each


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_run_deadline_rejects_the_remaining_links_counted(
    server: FixtureServer, sleep: SleepRecorder
) -> None:
    urls = [put(server, f"/news/{n}.html", article_page().encode()) for n in range(4)]
    clock = _Clock()
    config = replace(FETCH, max_run_seconds=60.0)

    class Slow(requests.Session):
        def get(self, *args: Any, **kwargs: Any) -> requests.Response:
            clock.now += 25.0  # every request takes 25 s of the run's 60
            return super().get(*args, **kwargs)

    with Fetcher(config, session=Slow(), sleep=sleep, clock=clock) as fetcher:
        rows, ledger = resolve(events_table(event("e1", urls[:2]), event("e2", urls[2:])), config, fetcher)
    # robots.txt (25 s) + page 0 (50 s), page 1 (75 s): past 60 s, pages 2 and 3 are never requested.
    assert [row["url"] for row in rows] == [canonical_url(u) for u in urls[:2]]
    assert [reason for reason, _ in reasons(ledger)] == ["run_deadline", "run_deadline"]
    assert "fetch budget of 60 s is spent" in reasons(ledger)[0][1]
    assert (ledger.items_in, ledger.items_out, ledger.rejected) == (4, 2, 2)
    assert [server.count(f"/news/{n}.html") for n in range(4)] == [1, 1, 0, 0]


def test_backoff_that_would_outlast_the_deadline_stops_the_url(
    server: FixtureServer, sleep: SleepRecorder
) -> None:
    url = put(server, "/news/bridge.html", article_page().encode())
    server.fail("/news/bridge.html", status=503, times=1, retry_after="7")
    config = replace(FETCH, max_run_seconds=5.0, respect_robots=False)
    with Fetcher(config, sleep=sleep, clock=_Clock()) as fetcher:
        result = fetcher.fetch(url)
    assert result.reason == "run_deadline" and "last attempt: HTTP 503" in result.detail
    assert sleep.calls == []  # did not wait 7 s of a 5 s budget
