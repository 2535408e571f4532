"""Issue 24 on the network and archive paths: the WCEP fetcher, fetch_bytes and GDELT page archives.

A page's own failure (a charset label naming a non-text codec, a parser raising) is that URL's reject;
bodies are streamed under caps; nothing here touches the network (loopback server, WARC files).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import requests

from almanac.ccnews.extract import Extracted, extract_article
from almanac.ccnews.warc import WarcLimits
from almanac.core.download import DownloadError, fetch_bytes
from almanac.gdelt.page_archive import ArchivedPage, PageArchive, PageProblem
from almanac.wcep import news
from almanac.wcep.news import Fetcher
from tests.gdelt.test_page_archive import ok, page, warc
from tests.support.bombs import header_lines_member
from tests.support.downloads import FAST, SleepRecorder, blob, put, server, sleep
from tests.support.http_fixture_server import FixtureServer
from tests.wcep_news_pages import FETCH, article_page

__all__ = ["server", "sleep"]  # pytest fixtures used by name


@pytest.fixture
def labelled_session() -> Iterator[requests.Session]:
    """A session whose responses declare ``text/html; charset=hex`` (the fixture server's type is fixed)."""

    def relabel(response: requests.Response, *args: Any, **kwargs: Any) -> requests.Response:
        response.headers["Content-Type"] = "text/html; charset=hex"
        return response

    with requests.Session() as session:
        session.hooks["response"].append(relabel)
        yield session


def test_a_non_text_codec_in_the_http_header_does_not_stop_the_fetcher(
    server: FixtureServer, sleep: SleepRecorder, labelled_session: requests.Session
) -> None:
    url = put(server, "/hex.html", article_page(charset="rot13").encode())
    with Fetcher(FETCH, session=labelled_session, sleep=sleep) as fetcher:
        result = fetcher.fetch(url)
    assert result.ok, result  # before: LookupError ("'hex' is not a text encoding") out of the stage


def test_whatever_one_page_raises_is_its_record_error(
    server: FixtureServer, sleep: SleepRecorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(html: str, url: str) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(news, "extract_article", explode)
    url = put(server, "/deep.html", article_page().encode())
    with Fetcher(FETCH, sleep=sleep) as fetcher:
        result = fetcher.fetch(url)
    assert (result.reason, result.detail) == (
        "record_error",
        "RecursionError: maximum recursion depth exceeded",
    )


def test_fetch_bytes_refuses_a_body_over_its_cap(server: FixtureServer, sleep: SleepRecorder) -> None:
    url = put(server, "/listing.txt", blob(70_000))
    with pytest.raises(DownloadError, match=r"body over max_fetch_bytes 50000 \(Content-Length 70000\)"):
        fetch_bytes(url, replace(FAST, max_fetch_bytes=50_000), sleep=sleep)
    assert fetch_bytes(url, replace(FAST, max_fetch_bytes=70_000), sleep=sleep) == blob(70_000)


def test_page_archive_caps_and_record_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    big, good, odd = (f"https://herald.example/{name}" for name in ("big", "good", "odd"))
    warc(tmp_path / "a.warc.gz", [ok(big, page(1) + b" " * 30_000), ok(good, page(2)), ok(odd, page(3))])

    def explode_on_odd(html: str, url: str) -> Extracted | None:
        if url == odd:
            raise ValueError("Exceeds the limit (4300 digits)")
        return extract_article(html, url)

    monkeypatch.setattr("almanac.gdelt.page_archive.extract_article", explode_on_odd)
    archive = PageArchive(limits=WarcLimits(max_page_bytes=20_000))
    archive._read_file(tmp_path / "a.warc.gz", {news.match_key(url) for url in (big, good, odd)})
    found = {url: archive.find(url) for url in (big, good, odd)}
    assert isinstance(found[good], ArchivedPage)
    problems = {
        url: (item.reason, item.detail.split(": ", 1)[1])
        for url, item in found.items()
        if isinstance(item, PageProblem)
    }
    assert problems == {
        big: ("page_too_large", "HTTP payload over max_page_bytes 20000"),
        odd: ("record_error", "ValueError: Exceeds the limit (4300 digits)"),
    }


def test_page_archive_header_bomb_stops_only_its_file(tmp_path: Path) -> None:
    url = "https://herald.example/water-deal"
    (tmp_path / "a.warc.gz").write_bytes(header_lines_member("https://herald.example/h", 3 << 20))
    warc(tmp_path / "b.warc.gz", [ok(url, page(1))])
    archive = PageArchive.open([tmp_path], [url])
    assert isinstance(archive.find(url), ArchivedPage)
    assert archive.file_problems == {"HeaderBlockTooLarge": 1}
