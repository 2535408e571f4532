"""WCEP ingest: portal day pages (hand-written and the bundled sample) and the WCEP-MDS JSONL format."""

from __future__ import annotations

import gzip
import json
from collections import Counter, defaultdict
from datetime import date
from pathlib import Path

import pytest

from almanac.ccnews.records import Unreadable
from almanac.core.ids import canonical_url, content_id
from almanac.core.schemas import table_from_rows
from almanac.wcep.days import (
    WCEP_EVENT_SCHEMA,
    event_row,
    file_name_for_title,
    parse_day_directory,
    parse_day_pages,
    read_day_directory,
    title_from_file_name,
)
from almanac.wcep.mds import MdsEvent, read_wcep_mds
from almanac.wcep.portal import PortalLayoutError, parse_day, parse_day_page, parse_title_date

ROOT = Path(__file__).resolve().parents[1]
SAMPLE_PORTAL = ROOT / "scripts" / "sample_wiki" / "portal"
SAMPLE_CORPUS = ROOT / "scripts" / "sample_corpus" / "articles.json"
MDS_FIXTURE = ROOT / "tests" / "fixtures" / "wcep" / "wcep_mds_sample.jsonl"
BROKEN_SAMPLE_TITLE = "Portal:Current events/2025 July 10"
TITLE = "Portal:Current events/2025 April 3"

NESTED_PAGE = """{{Current events|year=2025|month=04|day=3|content=
<!-- All news items below this line -->
'''Armed conflicts and attacks'''
* [[Carrow Valley conflict]]
** [[Siege of Dunmere|Dunmere siege]]
*** Militia forces shell the ''old town'' of [[Dunmere]], the [[Red Cross|aid agency]] says.<ref>Statement [https://aid.example/statement (Aid)]</ref> [https://WWW.MeridianHerald.example/2025/04/03/dunmere-shelled?utm_source=feed#top (Meridian Herald)] [https://www.tidewaterpost.example/2025/04/03/dunmere?b=2&a=1 (Tidewater Post)]
** Talks in [[Lorsk]] resume after a week. [https://www.northgatewire.example/x?utm_medium=a (Northgate Wire)] [https://www.northgatewire.example/x#more (Northgate Wire again)]

'''Business and economy'''
* Fairmart reports a loss of £{{nowrap|12 million}} for the year. {{Flagicon|Norvale}} [https://www.capitalledger.example/2025/04/03/fairmart-loss]
<!-- * [[Commented out story]]
** Commented out event. [https://hidden.example/ (Hidden)] -->
<!-- All news items above this line -->|}}"""


def test_nested_stories_categories_summaries_and_sources() -> None:
    events = parse_day_page(TITLE, NESTED_PAGE)
    assert len(events) == 3
    shelling, talks, loss = events

    assert shelling.date == date(2025, 4, 3)
    assert shelling.category == "Armed conflicts and attacks"
    # The story is the link target, not its display text.
    assert shelling.story_path == ("Carrow Valley conflict", "Siege of Dunmere")
    assert shelling.summary == "Militia forces shell the old town of Dunmere, the aid agency says."
    # Page order; host lower-cased, tracking parameter and fragment dropped, query sorted.
    assert shelling.source_urls == (
        "https://aid.example/statement",
        "https://www.meridianherald.example/2025/04/03/dunmere-shelled",
        "https://www.tidewaterpost.example/2025/04/03/dunmere?a=1&b=2",
    )
    assert shelling.source_names == ("Aid", "Meridian Herald", "Tidewater Post")
    assert shelling.event_id == content_id("2025-04-03", shelling.summary)

    # A depth-2 event after the depth-2 story closes belongs to the depth-1 story only.
    assert talks.story_path == ("Carrow Valley conflict",)
    assert talks.summary == "Talks in Lorsk resume after a week."
    assert talks.source_urls == ("https://www.northgatewire.example/x",)  # both links are one URL
    assert talks.source_names == ("Northgate Wire",)

    assert loss.category == "Business and economy"
    assert loss.story_path == ()
    assert loss.summary == "Fairmart reports a loss of £12 million for the year."
    assert loss.source_names == ("capitalledger.example",)  # an unlabelled link is named by its host


def test_event_directly_under_a_category() -> None:
    page = (
        "{{Current events|year=2025|month=4|day=3|content=\n'''Sports'''\n"
        "* Harbour City win the cup on penalties. [https://www.tidewaterpost.example/cup (Tidewater Post)]\n}}"
    )
    (event,) = parse_day_page(TITLE, page)
    assert (event.category, event.story_path) == ("Sports", ())
    assert event.summary == "Harbour City win the cup on penalties."
    assert event.source_urls == ("https://www.tidewaterpost.example/cup",)


def test_older_header_layout_with_term_headings() -> None:
    page = (
        '{{Current events header|2017|01|05}}\n<div class="description">\n;Disasters and accidents\n'
        "*[[Storm Amaris]]\n**A ferry runs aground off Fairhaven. [http://news.example/ferry (News)]\n</div>"
    )
    (event,) = parse_day_page("Portal:Current events/2017 January 5", page)
    assert event.category == "Disasters and accidents"
    assert event.story_path == ("Storm Amaris",)
    assert event.summary == "A ferry runs aground off Fairhaven."


def test_template_date_differing_from_title_is_an_error() -> None:
    page = NESTED_PAGE.replace("day=3|", "day=4|")
    with pytest.raises(PortalLayoutError, match="differs from title date"):
        parse_day_page(TITLE, page)


@pytest.mark.parametrize(
    "wikitext",
    [
        "{{Current events|year=2025|month=04|day=3|content=\nA calm day. Nothing is listed here, "
        "but see [https://x.example/ this report].\n}}",
        "{{Current events|year=2025|month=04|day=3|content=\n<!-- All news items below this line -->\n}}",
    ],
    ids=["free-prose", "empty-content"],
)
def test_unexpected_layout_is_an_error(wikitext: str) -> None:
    with pytest.raises(PortalLayoutError, match="no event bullets"):
        parse_day_page(TITLE, wikitext)


def test_title_without_a_day_is_an_error() -> None:
    with pytest.raises(PortalLayoutError, match="does not name a day"):
        parse_day_page("Portal:Current events/2025 April", NESTED_PAGE)


def test_bullet_with_only_a_source_link_is_reported_not_dropped() -> None:
    page = "'''Sports'''\n* [https://a.example/only (A)]\n* Real event. [https://a.example/b (A)]"
    parsed = parse_day(TITLE, page)
    assert [event.summary for event in parsed.events] == ["Real event."]
    assert parsed.empty_bullets == ["line 2: [https://a.example/only (A)]"]


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("Portal:Current events/2025 April 3", date(2025, 4, 3)),
        ("Portal:Current_events/2024_February_29", date(2024, 2, 29)),
        ("Portal:Current events/2025 February 29", None),  # not a leap year
        ("Portal:Current events/2025 April", None),
        ("Portal:Current events/2025 Aprill 3", None),
        ("Portal:Current events", None),
        ("2025 April 3", None),
    ],
)
def test_parse_title_date(title: str, expected: date | None) -> None:
    assert parse_title_date(title) == expected


def test_file_names_round_trip_to_titles() -> None:
    name = file_name_for_title(TITLE)
    assert name == "Portal:Current events__2025 April 3.wikitext"
    assert title_from_file_name(name) == TITLE
    assert title_from_file_name("Portal:Current events__2025 April 3.txt") == TITLE


def test_every_sample_page_parses_except_the_broken_one() -> None:
    pages = list(read_day_directory(SAMPLE_PORTAL))
    titles = [page[0] for page in pages if not isinstance(page, Unreadable)]
    assert len(titles) == 13 and BROKEN_SAMPLE_TITLE in titles
    dates = [parse_title_date(title) or date.max for title in titles]
    assert (
        dates == sorted(dates) and date.max not in dates
    )  # the directory reader yields days in calendar order
    for page in pages:
        assert not isinstance(page, Unreadable)
        title, wikitext = page
        if title == BROKEN_SAMPLE_TITLE:
            with pytest.raises(PortalLayoutError):
                parse_day_page(title, wikitext)
            continue
        events = parse_day_page(title, wikitext)
        assert events, title
        categories = {event.category for event in events}
        assert 2 <= len(categories) <= 4 and "" not in categories, title
        for event in events:
            assert event.date == parse_title_date(title)
            assert 1 <= len(event.source_urls) <= 2 and len(event.source_names) == len(event.source_urls)
            assert "[" not in event.summary and "{{" not in event.summary and "'''" not in event.summary


def test_sample_stories_recur_and_some_sources_are_sample_articles() -> None:
    result = parse_day_directory(SAMPLE_PORTAL)
    assert (result.pages_read, result.pages_parsed, result.not_day_pages) == (13, 12, 0)
    assert [(r.reason, r.source.rsplit(":", 1)[1]) for r in result.page_rejects] == [
        ("unexpected_layout", "Current events/2025 July 10")
    ]
    days_by_story: dict[str, set[date]] = defaultdict(set)
    events_by_story: Counter[str] = Counter()
    for event, _ in result.events:
        if event.story_path:
            events_by_story[event.story_path[0]] += 1
            days_by_story[event.story_path[0]].add(event.date)
    recurring = [story for story, count in events_by_story.items() if count >= 5]
    assert len(recurring) == 4
    for story in recurring:
        assert len({day.month for day in days_by_story[story]}) >= 3, story
    assert any(len(event.story_path) == 2 for event, _ in result.events)
    assert any(event.story_path == () for event, _ in result.events)

    corpus = json.loads(SAMPLE_CORPUS.read_text(encoding="utf-8"))
    corpus_urls = {canonical_url(article["url"]) for article in corpus["articles"]}
    cited = {url for event, _ in result.events for url in event.source_urls}
    assert len(cited & corpus_urls) >= 6


def test_day_pages_from_any_source_are_all_accounted_for(tmp_path: Path) -> None:
    good = "'''Sports'''\n* Rovers win. [https://a.example/r (A)]"
    pages: list[tuple[str, str] | Unreadable] = [
        (TITLE, good),
        ("Portal:Current events/Sidebar", "not a day"),
        ("Portal:Current events/2025 Aprill 3", good),
        ("Portal:Current events/2025 April 4", "Just prose."),
        Unreadable("truncated_file", "EOFError", "dump.xml.bz2:77"),
    ]
    result = parse_day_pages(pages, "dump")
    assert result.pages_read == 5
    assert result.pages_read == result.pages_parsed + len(result.page_rejects) + result.not_day_pages
    assert (result.pages_parsed, result.not_day_pages) == (1, 1)
    assert sorted((r.reason, r.source) for r in result.page_rejects) == [
        ("truncated_file", "dump.xml.bz2:77"),
        ("unexpected_layout", "dump:Portal:Current events/2025 April 4"),
        ("unexpected_layout", "dump:Portal:Current events/2025 Aprill 3"),
    ]
    assert [source for _, source in result.events] == [f"dump:{TITLE}"]

    (tmp_path / file_name_for_title(TITLE)).write_text(good, encoding="utf-8")
    (tmp_path / "Portal:Current events__2025 April 5.txt").write_bytes(b"'''Sports'''\n* caf\xe9 [x]")
    (tmp_path / "notes.md").write_text("ignored: not a page file", encoding="utf-8")
    from_directory = parse_day_directory(tmp_path)
    assert from_directory.pages_read == 2 and from_directory.pages_parsed == 1
    assert [r.reason for r in from_directory.page_rejects] == ["undecodable_payload"]


def test_event_rows_fit_the_schema() -> None:
    events = parse_day_page(TITLE, NESTED_PAGE)
    table = table_from_rows([event_row(e, "portal", "x") for e in events], WCEP_EVENT_SCHEMA)
    row = table.to_pylist()[0]
    assert row["date"] == date(2025, 4, 3)
    assert row["story_path"] == ["Carrow Valley conflict", "Siege of Dunmere"]


def test_wcep_mds_good_and_bad_lines() -> None:
    items = list(read_wcep_mds(MDS_FIXTURE, "mds"))
    assert len(items) == 5
    good = [item for item in items if isinstance(item, MdsEvent)]
    bad = [item for item in items if isinstance(item, Unreadable)]
    assert [(b.reason, b.source) for b in bad] == [("invalid_json", "mds:4"), ("missing_field", "mds:5")]
    assert "summary" in bad[1].detail

    first = good[0].event
    assert first.date == date(2025, 5, 5) and first.category == "Politics and elections"
    assert first.event_id == content_id("2025-05-05", first.summary)
    # Article URLs first, then reference URLs; the tracked and plain copies of one URL count once.
    assert first.source_urls == (
        "https://www.meridianherald.example/2025/05/05/progress-alliance-wins-norvale-assembly-election",
        "https://www.northgatewire.example/2025/05/05/ashdown-to-quit-as-unity-leader",
        "https://www.tidewaterpost.example/2025/05/05/norvale-count-ends",
    )
    assert [a.origin for a in good[0].articles] == ["WCEP", "CommonCrawl"]
    assert good[1].event.summary.count("  ") == 0  # whitespace runs collapsed
    assert good[1].skipped_links == 1  # the article entry without a URL is counted
    assert good[2].event.source_urls == (
        "https://www.northgatewire.example/2025/07/03/corra-breaches-saltmarsh-flood-wall",
    )


def test_wcep_mds_gzip_bad_date_and_truncation(tmp_path: Path) -> None:
    lines = [
        json.dumps({"date": "2025-13-01", "summary": "Month thirteen."}),
        json.dumps({"date": "2025-05-08T00:00:00", "summary": "A deal is agreed.", "articles": []}),
        json.dumps(["not", "an", "object"]),
    ]
    path = tmp_path / "wcep.jsonl.gz"
    path.write_bytes(gzip.compress("\n".join(lines).encode("utf-8")))
    items = list(read_wcep_mds(path, "gz"))
    assert isinstance(items[0], Unreadable) and items[0].reason == "bad_date"
    assert isinstance(items[1], MdsEvent) and items[1].event.date == date(2025, 5, 8)
    assert isinstance(items[2], Unreadable) and items[2].reason == "invalid_json"

    truncated = tmp_path / "cut.jsonl.gz"
    truncated.write_bytes(path.read_bytes()[:-12])
    last = list(read_wcep_mds(truncated, "cut"))[-1]
    assert isinstance(last, Unreadable) and last.reason == "truncated_file"
