"""complex_events on small hand-built tables: grouping, ordering, document text, rejects, stable ids."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

import pytest

from almanac.core.ids import content_id
from almanac.core.schemas import table_from_rows
from almanac.events.complex import ComplexEventsConfig, build_complex_events, majority_topic
from almanac.events.documents import truncate_words
from almanac.events.schema import WIKI_EVENT_SCHEMA
from almanac.wcep.days import WCEP_EVENT_SCHEMA
from almanac.wcep.news import WCEP_NEWS_SCHEMA

STORM = ["2025 Halden Sea storm season", "Storm Amaris"]
SEASON = ["2025 Halden Sea storm season"]
BERTIL = ["2025 Halden Sea storm season", "Storm Bertil"]


def event(
    day: str,
    summary: str,
    path: list[str],
    category: str = "Disasters and accidents",
    urls: tuple[str, ...] = (),
) -> dict[str, Any]:
    return {
        "id": content_id(day, summary),
        "date": dt.date.fromisoformat(day),
        "category": category,
        "story_path": path,
        "summary": summary,
        "source_urls": list(urls),
        "source_names": ["Example"] * len(urls),
        "origin": "portal",
        "source": f"portal:Portal:Current events/{day}",
    }


def news(row: dict[str, Any], url: str, title: str, text: str) -> dict[str, Any]:
    return {
        "event_id": row["id"],
        "url": url,
        "article_id": content_id(url, text),
        "title": title,
        "text": text,
        "publish_date": None,
        "origin": "ccnews",
    }


def wiki_event(page_id: int, title: str, topic: str = "Disasters and accidents") -> dict[str, Any]:
    return {
        "page_id": page_id,
        "title": title,
        "revision_timestamp": dt.datetime(2025, 8, 1, tzinfo=dt.UTC),
        "topic": topic,
        "occurrence_date": "2025-07",
        "date_precision": "month",
        "sections": [
            {"title": "", "level": 0, "text": "The river flooded."},
            {"title": "Timeline", "level": 2, "text": ""},
            {"title": "March 2025", "level": 3, "text": "Rain began.\nLevees failed."},
            {"title": "Aftermath", "level": 2, "text": "Rebuilding started."},
        ],
        "word_count": 7,
        "source": f"dump.xml:page:{page_id}",
    }


def build(
    events: Sequence[dict[str, Any]],
    articles: Sequence[dict[str, Any]] = (),
    wiki: Sequence[dict[str, Any]] = (),
    **config: Any,
) -> tuple[list[dict[str, Any]], Any]:
    table, ledger = build_complex_events(
        table_from_rows(list(wiki), WIKI_EVENT_SCHEMA),
        table_from_rows(list(events), WCEP_EVENT_SCHEMA),
        table_from_rows(list(articles), WCEP_NEWS_SCHEMA),
        ComplexEventsConfig(**config),
    )
    ledger.check_balance()
    return table.to_pylist(), ledger


def by_title(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {row["title"]: row for row in rows}


STORY_EVENTS = [
    event("2025-03-20", "Storm Amaris comes ashore.", STORM),
    event("2025-04-01", "Insurers estimate claims.", STORM, "Business and economy"),
    event("2025-05-08", "A busier season is forecast.", SEASON),
    event("2025-06-12", "Storm Bertil floods Linden Cross.", BERTIL),
    event("2025-04-24", "Brightwater buys Lumen.", [], "Business and economy"),
]


def test_full_story_path_groups_each_sub_story_and_no_story_is_rejected() -> None:
    rows, ledger = build(STORY_EVENTS, wcep_group="path")
    assert sorted(tuple(row["story_path"]) for row in rows) == sorted(
        [tuple(STORM), tuple(SEASON), tuple(BERTIL)]
    )
    amaris = by_title(rows)["Storm Amaris"]
    assert amaris["ce_id"] == content_id("wcep", "2025 Halden Sea storm season > Storm Amaris")
    assert [doc["text"] for doc in amaris["documents"]] == [
        "Storm Amaris comes ashore.",
        "Insurers estimate claims.",
    ]
    assert (amaris["first_date"], amaris["last_date"]) == (dt.date(2025, 3, 20), dt.date(2025, 4, 1))
    assert ledger.items_in == 5 and ledger.items_out == 4
    [reject] = ledger.rejects
    assert reject.reason == "no_story" and reject.id == STORY_EVENTS[4]["id"]
    assert ledger.extra["complex_events_by_origin"] == {"wcep": 3}
    assert ledger.extra["documents_per_complex_event"] == {"1": 2, "2": 1}


ELECTION = "2025 Norvale regional assembly election"
# The portal nests the same story differently on different days: under "Politics of Norvale" on two
# days, on its own on a third.
NESTING_EVENTS = [
    event("2025-03-06", "Polling day is fixed.", ["Politics of Norvale", ELECTION], "Politics and elections"),
    event("2025-04-01", "Nominations close.", ["Politics of Norvale", ELECTION], "Politics and elections"),
    event("2025-05-05", "The Alliance wins.", [ELECTION], "Politics and elections"),
    event("2025-05-30", "A new party leader.", ["Politics of Norvale"], "Politics and elections"),
]


def test_events_under_the_same_innermost_heading_form_one_complex_event() -> None:
    rows, ledger = build(NESTING_EVENTS)  # default: wcep_group event
    election, politics = by_title(rows)[ELECTION], by_title(rows)["Politics of Norvale"]
    assert [doc["text"] for doc in election["documents"]] == [
        "Polling day is fixed.",
        "Nominations close.",
        "The Alliance wins.",
    ]
    assert election["ce_id"] == content_id("wcep", ELECTION)
    assert election["story_path"] == ["Politics of Norvale", ELECTION]  # the path used twice of three
    assert election["source"] == f"wcep_story:{ELECTION}"
    assert [doc["text"] for doc in politics["documents"]] == ["A new party leader."]
    assert len(rows) == 2 and ledger.items_out == 4
    # Grouped by full path the one story splits in two.
    by_path, _ = build(NESTING_EVENTS, wcep_group="path")
    assert sorted(len(row["documents"]) for row in by_path if row["title"] == ELECTION) == [1, 2]
    with pytest.raises(ValueError, match="wcep_group"):
        ComplexEventsConfig(wcep_group="story")


def test_top_grouping_merges_everything_under_the_first_heading() -> None:
    rows, ledger = build(STORY_EVENTS, wcep_group="top")
    [season] = rows
    assert season["story_path"] == SEASON and season["title"] == "2025 Halden Sea storm season"
    assert season["ce_id"] == content_id("wcep", "2025 Halden Sea storm season")
    assert [doc["date"].isoformat() for doc in season["documents"]] == [
        "2025-03-20",
        "2025-04-01",
        "2025-05-08",
        "2025-06-12",
    ]
    # Each document keeps its own sub-story as title.
    assert [doc["title"] for doc in season["documents"]] == [
        "Storm Amaris",
        "Storm Amaris",
        "2025 Halden Sea storm season",
        "Storm Bertil",
    ]
    assert ledger.items_out == 4 and ledger.rejected_by_reason == {"no_story": 1}


def test_documents_sorted_by_date_then_doc_id_and_rows_by_ce_id() -> None:
    same_day = [event("2025-03-06", f"Event number {n}.", STORM) for n in range(4)]
    earlier = event("2025-03-01", "The first warning.", STORM)
    other = event("2025-03-02", "Talks open.", ["Estmark-Varnland relations"], "International relations")
    rows, _ = build([*same_day, other, earlier])
    assert [row["ce_id"] for row in rows] == sorted(row["ce_id"] for row in rows)
    docs = by_title(rows)["Storm Amaris"]["documents"]
    assert docs[0]["doc_id"] == earlier["id"]
    assert [doc["doc_id"] for doc in docs[1:]] == sorted(row["id"] for row in same_day)


def test_document_is_summary_then_resolved_articles_in_link_order() -> None:
    first = event(
        "2025-03-20",
        "Storm Amaris comes ashore.",
        STORM,
        urls=("https://www.a.example/one", "https://b.example/two?utm_source=x", "https://c.example/dead"),
    )
    bare = event("2025-03-21", "Trains are halted.", STORM, urls=("https://c.example/dead",))
    articles = [  # news rows listed out of link order; the dead link resolved nothing
        news(first, "https://b.example/two", "Second", "Gusts of 140 km/h."),
        news(first, "https://www.a.example/one", "First", "Thousands lose power."),
    ]
    rows, ledger = build([first, bare], articles)
    doc, bare_doc = rows[0]["documents"]
    assert doc["text"] == (
        "Storm Amaris comes ashore.\n\nFirst\n\nThousands lose power.\n\nSecond\n\nGusts of 140 km/h."
    )
    assert doc["urls"] == ["https://www.a.example/one", "https://b.example/two"]
    assert doc["kind"] == "wcep_event" and doc["doc_id"] == first["id"]
    assert bare_doc["text"] == "Trains are halted." and bare_doc["urls"] == []
    assert ledger.extra["wcep_events_without_articles"] == 1


def test_long_documents_are_cut_at_a_word_boundary_and_drop_unread_urls() -> None:
    row = event(
        "2025-03-20", "Storm Amaris comes ashore.", STORM, urls=("https://a.example/1", "https://a.example/2")
    )
    long_text = " ".join(f"word{n}" for n in range(40))  # 40 words, 279 characters
    articles = [
        news(row, "https://a.example/1", "First", long_text),
        news(row, "https://a.example/2", "Second", "Never read."),
    ]
    rows, ledger = build([row], articles, max_document_chars=60)
    [doc] = rows[0]["documents"]
    # summary (26) + blank line + "First" + blank line = 35 characters; "word0 word1 word2" ends at 52,
    # and "word3" would end at 58, past the 56 left for the text once " ..." is counted.
    assert doc["text"] == "Storm Amaris comes ashore.\n\nFirst\n\nword0 word1 word2 ..."
    assert doc["urls"] == ["https://a.example/1"]
    assert ledger.extra["wcep_documents_truncated"] == 1


@pytest.mark.parametrize(
    ("text", "limit", "expected"),
    [
        ("alpha beta gamma", 0, "alpha beta gamma"),
        ("alpha beta gamma", 16, "alpha beta gamma"),
        ("alpha beta gamma", 14, "alpha beta ..."),  # the cut falls on the space after "beta"
        ("alpha beta gamma", 13, "alpha ..."),  # "beta" would not fit whole
        ("alpha\nbeta gamma", 12, "alpha ..."),  # a newline is a boundary too
        ("abcdefghij", 8, "abcd ..."),  # one word longer than the room is cut inside
    ],
)
def test_truncate_words(text: str, limit: int, expected: str) -> None:
    assert truncate_words(text, limit) == expected


def test_topic_is_the_most_frequent_category_ties_alphabetical() -> None:
    assert majority_topic(["Politics and elections", "Law and crime", "Politics and elections"]) == (
        "Politics and elections"
    )
    assert majority_topic(["Politics and elections", "Law and crime"]) == "Law and crime"
    path = ["Politics of Norvale", "2025 Norvale election"]
    events = [
        event("2025-03-06", "Polling day is fixed.", path, "Politics and elections"),
        event("2025-06-12", "The court throws out a challenge.", path, "Law and crime"),
    ]
    [row], _ = build(events)
    assert row["topic"] == "Law and crime"
    [row], _ = build([*events, event("2025-05-05", "The Alliance wins.", path, "Politics and elections")])
    assert row["topic"] == "Politics and elections"


def test_wikipedia_article_is_one_complex_event_with_its_sections_as_text() -> None:
    rows, ledger = build([], wiki=[wiki_event(70101, "2025 Veloria River floods")])
    [row] = rows
    assert row["ce_id"] == content_id("wikipedia", "70101")
    assert (row["origin"], row["topic"], row["story_path"], row["first_date"]) == (
        "wikipedia",
        "Disasters and accidents",
        [],
        None,
    )
    [doc] = row["documents"]
    assert doc["kind"] == "wikipedia_article" and doc["date"] is None and doc["title"] == row["title"]
    assert doc["text"] == (
        "The river flooded.\n\nTimeline\n\nMarch 2025\nRain began.\nLevees failed.\n\nAftermath\nRebuilding started."
    )
    assert ledger.items_in == ledger.items_out == 1


def test_ids_and_bytes_do_not_depend_on_input_order() -> None:
    wiki = [wiki_event(70102, "Port strike"), wiki_event(70101, "Floods")]
    forward, _ = build(STORY_EVENTS, wiki=wiki)
    backward, _ = build(list(reversed(STORY_EVENTS)), wiki=list(reversed(wiki)))
    assert forward == backward
    assert {row["ce_id"] for row in forward} >= {
        content_id("wikipedia", "70101"),
        content_id("wikipedia", "70102"),
    }


def test_a_repeated_event_is_rejected_once_not_doubled() -> None:
    row = event("2025-03-20", "Storm Amaris comes ashore.", STORM)
    rows, ledger = build([row, dict(row, source="wcep_mds.jsonl:3")])
    assert len(rows[0]["documents"]) == 1
    assert ledger.rejected_by_reason == {"duplicate_event": 1}
