"""Events, corpus rows, article pages and the fetcher shared by the wcep_news tests."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pyarrow as pa
import pytest

from almanac.core.rejects import StageLedger
from almanac.core.schemas import ARTICLE_SCHEMA, table_from_rows
from almanac.wcep.days import WCEP_EVENT_SCHEMA
from almanac.wcep.news import WCEP_NEWS_SCHEMA, Fetcher, NewsConfig, resolve_event_sources
from tests.support.downloads import SleepRecorder, sleep

__all__ = ["sleep"]  # pytest fixtures used by name

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
