"""wcep_news: event source links resolved from the CC-News corpus, else fetched pages read for their text."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyarrow as pa
import pytest
import requests

from almanac.core.ids import canonical_url, content_id, source_domain
from almanac.core.rejects import StageLedger
from almanac.core.schemas import ARTICLE_SCHEMA, table_from_rows
from almanac.wcep.news import Fetcher, NewsConfig, resolve_event_sources
from tests.support.downloads import SleepRecorder, put, server, sleep
from tests.support.http_fixture_server import FixtureServer
from tests.wcep_news_pages import (
    EMPTY_CORPUS,
    FETCH,
    PARAGRAPHS,
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
