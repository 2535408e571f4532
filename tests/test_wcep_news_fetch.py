"""wcep_news fetching from a loopback server: HTTP errors, retries, robots.txt, redirects and deadlines."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
import requests

from almanac.core.ids import canonical_url
from almanac.wcep.news import Fetcher, NewsConfig
from tests.support.downloads import SleepRecorder, put, server, sleep
from tests.support.http_fixture_server import FixtureServer
from tests.wcep_news_pages import (
    FETCH,
    TITLE,
    UA,
    article_page,
    event,
    events_table,
    fetcher,
    reasons,
    resolve,
)

__all__ = ["fetcher", "server", "sleep"]  # pytest fixtures used by name


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
