"""Publication dates with a source and a precision: each source, its traps, and the crawl-date rules."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from trafilatura.utils import load_html

from almanac.ccnews.dates import DateFinding, DatePolicy, decide_date, find_page_date, parse_date_value
from almanac.ccnews.filters import FilterConfig
from almanac.ccnews.ingest import FileTask, IngestConfig, file_kind, ingest_file
from tests.support.warc_factory import article_text, warc_bytes, write_newsplease

CRAWL = datetime(2025, 5, 20, 10, 0, tzinfo=UTC)  # the WARC-Date warc_factory writes on every response
POLICY = DatePolicy()
REJECT = DatePolicy(undated="reject")
LOOSE = FilterConfig(domains=(), languages=("en",), min_words=100)


def page(head: str = "", body: str = "", seed: int = 1) -> str:
    paragraphs = "".join(f"<p>{sentence}.</p>" for sentence in article_text(seed).split(". "))
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>T{seed}</title>{head}</head>'
        f"<body><article><h1>Title {seed}</h1>{body}{paragraphs}</article>"
        "<footer>Contact us</footer></body></html>"
    )


def find(html: str, url: str = "https://news.example/story") -> DateFinding:
    return find_page_date(load_html(html), url)


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-05-10", (day("2025-05-10"), "day")),
        ("2025-05-10T23:30:00-05:00", (day("2025-05-10"), "day")),  # the stated day, not UTC's 11th
        ("20250510", (day("2025-05-10"), "day")),
        ("2025/5/9", (day("2025-05-09"), "day")),
        ("Sat, 10 May 2025 08:00:00 GMT", (day("2025-05-10"), "day")),
        ("May 3, 2025", (day("2025-05-03"), "day")),
        ("3rd May 2025", (day("2025-05-03"), "day")),
        ("2025-05", (None, "month")),
        ("2020", (None, "year")),
        ("2025-02-30", (None, None)),
        ("1850-01-01", (None, None)),
        ("yesterday", (None, None)),
        ("", (None, None)),
    ],
)
def test_parse_date_value(value: str, expected: tuple[datetime | None, str | None]) -> None:
    assert parse_date_value(value) == expected


def test_parse_keep_time_takes_the_instant_and_naive_as_utc() -> None:
    assert parse_date_value("2025-06-02 09:30:00", keep_time=True) == (day("2025-06-02T09:30:00"), "day")
    assert parse_date_value("2025-05-10T23:30:00-05:00", keep_time=True)[0] == day("2025-05-11T04:30:00")


def test_meta_tag_most_specific_name_wins_over_document_order() -> None:
    head = (
        '<meta name="date" content="2025-05-01">'
        '<meta property="article:modified_time" content="2025-05-15T08:00:00Z">'
        '<meta property="article:published_time" content="2025-05-12T08:00:00+00:00">'
    )
    assert find(page(head)) == DateFinding(day("2025-05-12"), "html_meta")


def test_microdata_time_element_counts_as_meta() -> None:
    body = '<time itemprop="datePublished" datetime="2025-05-06">6 May</time>'
    assert find(page(body=body)) == DateFinding(day("2025-05-06"), "html_meta")


def test_json_ld_date_published_in_a_graph_after_broken_json_ld() -> None:
    head = (
        '<script type="application/ld+json">{"@type": "NewsArticle", </script>'
        '<script type="application/ld+json">{"@graph": [{"@type": "WebPage"}, {"@type": "NewsArticle",'
        ' "dateModified": "2025-05-18T00:00:00Z", "datePublished": "2025-04-30T10:00:00Z"}]}</script>'
    )
    assert find(page(head)) == DateFinding(day("2025-04-30"), "json_ld")


def test_url_day_and_url_month() -> None:
    assert find(page(), "https://news.example/2025/05/09/bridge") == DateFinding(day("2025-05-09"), "url")
    month_only = find(page(), "https://news.example/2025/05/bridge")
    assert month_only == DateFinding(None, None, ("url",))  # a month is never turned into the 1st


def test_meta_beats_json_ld_beats_url() -> None:
    head = (
        '<meta property="article:published_time" content="2025-05-12">'
        '<script type="application/ld+json">{"datePublished": "2025-05-11"}</script>'
    )
    url = "https://news.example/2025/05/10/x"
    assert find(page(head), url).source == "html_meta"
    assert find(page(head[head.index("<script") :]), url).source == "json_ld"


def test_copyright_year_is_not_a_day() -> None:
    """The case from the issue: a footer year used to become 1 January of that year."""
    html = page(body="<p>© 2020 The Harbour Gazette. All rights reserved.</p>") + ""
    found = find(html.replace("<footer>Contact us</footer>", "<footer>Copyright 2020</footer>"))
    assert found == DateFinding()
    crawl = datetime(2020, 8, 14, 6, 0, tzinfo=UTC)
    decision = decide_date(found, crawl, POLICY)
    assert (decision.publish_date, decision.source, decision.precision) == (
        crawl,
        "crawl_date",
        "upper_bound",
    )
    assert decide_date(found, crawl, REJECT).publish_date is None


def test_year_only_meta_is_counted_partial_and_not_a_day() -> None:
    assert find(page('<meta name="date" content="2020">')) == DateFinding(None, None, ("html_meta",))


def test_text_byline_date_and_other_text_dates() -> None:
    byline = find(page(body="<p>By Ann Lee. Posted on May 3, 2025</p>"))
    assert byline == DateFinding(day("2025-05-03"), "text")
    # A date the story talks about is not when it was published.
    story = find(page(body="<p>On March 3, 2019 the council first met about the bridge.</p>"))
    assert story == DateFinding()


def test_date_after_the_crawl_becomes_the_crawl_date_upper_bound() -> None:
    later = DateFinding(day("2025-06-01"), "html_meta")
    decision = decide_date(later, CRAWL, POLICY)
    assert (decision.publish_date, decision.source, decision.precision) == (
        CRAWL,
        "crawl_date",
        "upper_bound",
    )
    assert decision.discarded == "after_crawl"
    rejected = decide_date(later, CRAWL, REJECT)
    assert rejected.publish_date is None and "after the crawl date 2025-05-20" in rejected.detail


def test_same_day_as_crawl_is_kept_as_a_day() -> None:
    decision = decide_date(DateFinding(day("2025-05-20"), "url"), CRAWL, POLICY)
    assert (decision.publish_date, decision.precision) == (day("2025-05-20"), "day")


def test_text_date_too_long_before_the_crawl_is_unknown_but_strong_sources_are_not() -> None:
    old = day("2025-04-19")  # 31 days and 10 hours before the crawl: beyond the default 30
    text = decide_date(DateFinding(old, "text"), CRAWL, POLICY)
    assert (text.source, text.precision, text.discarded) == ("crawl_date", "upper_bound", "too_early")
    recent = decide_date(DateFinding(day("2025-04-21"), "text"), CRAWL, POLICY)  # 29 days before
    assert (recent.source, recent.precision) == ("text", "day")
    meta = decide_date(DateFinding(old, "html_meta"), CRAWL, POLICY)
    assert (meta.publish_date, meta.source, meta.precision) == (old, "html_meta", "day")
    assert decide_date(DateFinding(old, "text"), CRAWL, DatePolicy(max_date_lag_days=40)).source == "text"


def test_no_crawl_date_and_no_day_is_rejected_even_with_crawl_date_policy() -> None:
    decision = decide_date(DateFinding(), None, POLICY)
    assert decision.publish_date is None and "no crawl date" in decision.detail


def test_bad_policy_values_fail_at_start_up() -> None:
    with pytest.raises(ValueError, match="undated"):
        IngestConfig(undated="none")
    with pytest.raises(ValueError, match="max_date_lag_days"):
        IngestConfig(max_date_lag_days=-1)


def run(path: Path, config: IngestConfig) -> tuple[list[dict[str, object]], dict[str, object]]:
    rows, ledger = ingest_file(FileTask(str(path), path.name, file_kind(path.name), config))
    return rows, ledger.metrics()


def test_ingest_records_source_and_precision_for_each_kind_of_page(tmp_path: Path) -> None:
    site = "https://www.gazette.example"
    pages = [
        (
            f"{site}/a",
            page('<meta property="article:published_time" content="2025-05-12T08:00:00Z">', seed=1),
        ),
        (
            f"{site}/b",
            page('<script type="application/ld+json">{"datePublished": "2025-05-11"}</script>', seed=2),
        ),
        (f"{site}/2025/05/09/c", page(seed=3)),
        (f"{site}/d", page(body="<p>Updated: 2025-05-08</p>", seed=4)),
        (f"{site}/e", page(body="<p>© 2020 Gazette</p>", seed=5)),  # copyright year only
        (f"{site}/f", page('<meta property="article:published_time" content="2025-06-30">', seed=6)),
    ]
    path = tmp_path / "dates.warc.gz"
    path.write_bytes(warc_bytes([(url, html.encode()) for url, html in pages]))
    rows, metrics = run(path, IngestConfig(filters=LOOSE))
    got = {
        str(row["url"])[len(site) :]: (
            str(row["publish_date"])[:10],
            row["date_source"],
            row["date_precision"],
        )
        for row in rows
    }
    assert got == {
        "/a": ("2025-05-12", "html_meta", "day"),
        "/b": ("2025-05-11", "json_ld", "day"),
        "/2025/05/09/c": ("2025-05-09", "url", "day"),
        "/d": ("2025-05-08", "text", "day"),
        "/e": ("2025-05-20", "crawl_date", "upper_bound"),
        "/f": ("2025-05-20", "crawl_date", "upper_bound"),  # dated after its own crawl
    }
    assert metrics["dates_by_source"] == {"crawl_date": 2, "html_meta": 1, "json_ld": 1, "text": 1, "url": 1}
    assert metrics["dates_by_precision"] == {"day": 4, "upper_bound": 2}
    assert metrics["dates_discarded_after_crawl"] == {"html_meta": 1}
    rows, metrics = run(path, IngestConfig(filters=LOOSE, undated="reject"))
    assert len(rows) == 4 and metrics["rejected_by_reason"] == {"no_publish_date": 2}
    assert {row["date_precision"] for row in rows} == {"day"}


def test_newsplease_feed_dates_partial_and_missing(tmp_path: Path) -> None:
    base = {"title": "T", "maintext": article_text(7), "date_download": "2025-06-03 00:00:00"}
    path = tmp_path / "np.jsonl"
    write_newsplease(
        path,
        [
            {**base, "url": "https://np.example/1", "date_publish": "2025-06-02 09:30:00"},
            {**base, "url": "https://np.example/2", "date_publish": "2025"},
            {**base, "url": "https://np.example/3", "date_publish": None},
            {**base, "url": "https://np.example/4", "date_publish": "2025-06-09 00:00:00"},
            {**base, "url": "https://np.example/5", "date_publish": None, "date_download": None},
        ],
    )
    rows, metrics = run(path, IngestConfig(filters=LOOSE))
    got = {
        str(row["url"])[-1]: (str(row["publish_date"]), row["date_source"], row["date_precision"])
        for row in rows
    }
    assert got == {
        "1": ("2025-06-02 09:30:00+00:00", "feed", "day"),
        "2": ("2025-06-03 00:00:00+00:00", "crawl_date", "upper_bound"),
        "3": ("2025-06-03 00:00:00+00:00", "crawl_date", "upper_bound"),
        "4": ("2025-06-03 00:00:00+00:00", "crawl_date", "upper_bound"),
    }
    assert metrics["rejected_by_reason"] == {"no_publish_date": 1}  # no date and no crawl date
    assert metrics["partial_dates_ignored"] == {"feed": 1}
    assert metrics["dates_discarded_after_crawl"] == {"feed": 1}


REAL_WARCS = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "warc"


@pytest.mark.skipif(not REAL_WARCS.is_dir(), reason="../shared/realdata/warc not present in this checkout")
def test_real_warcs_carry_no_day_guessed_from_a_year() -> None:
    """Expected values read off the records by hand (see the note in the test body)."""
    config = IngestConfig(filters=FilterConfig(domains=(), languages=(), min_words=1))
    got = {}
    for name in ("warcio_example.warc.gz", "ccmain-2024-22_whirlwind.warc.gz"):
        rows, _ledger = ingest_file(FileTask(str(REAL_WARCS / name), name, "warc", config))
        for row in rows:
            got[row["url"]] = (str(row["publish_date"]), row["date_source"], row["date_precision"])
    assert got == {
        # example.com has no date anywhere: its WARC-Date 2017-03-06T04:02:06Z bounds publication.
        "http://example.com/": ("2017-03-06 04:02:06+00:00", "crawl_date", "upper_bound"),
        # The Wikipedia page's JSON-LD says "datePublished":"2008-07-04T09:51:01Z" (page creation);
        # crawled 2024-05-18, so it is a day before the crawl from a structured source.
        "https://an.wikipedia.org/wiki/Escopete": ("2008-07-04 00:00:00+00:00", "json_ld", "day"),
    }
