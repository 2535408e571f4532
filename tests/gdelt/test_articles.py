"""gdelt_articles: event URLs linked to the corpus (or fetched), then OBELICS-style document checks."""

from __future__ import annotations

import hashlib
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
import yaml

from almanac.core.ids import canonical_url, content_id, source_domain
from almanac.core.io import read_json, write_parquet
from almanac.core.params import load_params, parse_section
from almanac.core.rejects import StageLedger
from almanac.core.schemas import ARTICLE_SCHEMA, table_from_rows
from almanac.gdelt.articles import GDELT_ARTICLE_SCHEMA, GdeltArticlesConfig, link_articles, quality_failure
from almanac.gdelt.clean import CLEAN_EVENT_SCHEMA
from almanac.gdelt.doc_quality import (
    DocQuality,
    char_repetition,
    measure,
    repeated_share,
    special_char_ratio,
    word_count,
    word_repetition,
)
from almanac.wcep.news import Fetcher
from tests.support.downloads import SleepRecorder, put, server, sleep
from tests.support.http_fixture_server import FixtureServer

__all__ = ["server", "sleep"]  # pytest fixtures used by name

ROOT = Path(__file__).resolve().parents[2]

NORMAL = (
    "Ministers from both countries met in the border town of Valen on Tuesday to sign a water-sharing"
    " agreement that had been under negotiation for almost three years.\n"
    "The deal sets out how much the upstream dam may hold back during dry summers, and creates a joint"
    " commission of engineers who will publish river levels every week.\n"
    "Farmers' unions on the downstream side welcomed the agreement but said they would wait to see whether"
    " the first drought season tested it. Officials expect parliament to ratify the text before winter."
)
REPETITIVE = " ".join(["Click here to read the full story on our partner site today."] * 8)
SPECIAL = " ".join(f"#{index} | >> [{index}] <<" for index in range(60))
SHORT = "Talks resumed on Tuesday, officials said."


def test_measures_on_hand_checked_cases() -> None:
    assert repeated_share(["a", "b", "a", "a"]) == 0.5  # 4 occurrences, 2 distinct
    assert repeated_share([]) == 0.0
    # 3-grams of "abcabcabc": abc bca cab abc bca cab abc -> 7 occurrences, 3 distinct
    assert char_repetition("abcabcabc", n=3) == pytest.approx(4 / 7)
    assert char_repetition("ab  \n  cd", n=3) == 0.0  # whitespace runs collapse: "ab cd"
    assert char_repetition("abcabcabc  ", n=3) == char_repetition("abcabcabc", n=3)
    assert char_repetition("too short") == 0.0  # fewer than 10 characters
    # six 5-grams, the last repeating the first once case is folded
    assert word_repetition("One two three four five one two three four five") == pytest.approx(1 / 6)
    assert word_repetition("a b c d") == 0.0
    assert special_char_ratio("ab #|") == 0.5  # a, b, #, | counted; spaces not
    assert special_char_ratio("Zürich: 5% \u2013 “ok” … (yes)") == 0.0  # letters, digits, prose punctuation
    assert special_char_ratio("😀😀ab") == 0.5
    assert special_char_ratio("   ") == 0.0
    assert word_count("  a b\n c ") == 3


def test_documents_on_each_side_of_the_thresholds() -> None:
    config = GdeltArticlesConfig()
    normal = measure(NORMAL)
    assert normal.word_count >= 50 and quality_failure(normal, config) is None
    assert quality_failure(measure(SHORT), config) == ("too_few_words", "6 words < 50")
    repetitive = measure(REPETITIVE)
    # 12 words x 8 = 96 words; 92 word 5-grams of which only 12 are distinct (the sentence cycles)
    assert repetitive.word_count == 96
    assert repetitive.word_repetition == pytest.approx((92 - 12) / 92)
    assert quality_failure(repetitive, config)[0] == "char_repetition"  # type: ignore[index]
    relaxed = GdeltArticlesConfig(max_char_repetition=1.0)
    assert quality_failure(repetitive, relaxed)[0] == "word_repetition"  # type: ignore[index]
    special = measure(SPECIAL)
    assert special.special_char_ratio > 0.5
    reason = quality_failure(special, GdeltArticlesConfig(max_char_repetition=1.0, max_word_repetition=1.0))
    assert reason is not None and reason[0] == "special_chars"


def test_threshold_boundaries_pass() -> None:
    config = GdeltArticlesConfig(min_words=50, max_char_repetition=0.2, max_word_repetition=0.2)
    assert quality_failure(DocQuality(50, 0.2, 0.2, 0.3), config) is None
    assert quality_failure(DocQuality(49, 0.0, 0.0, 0.0), config) is not None
    assert quality_failure(DocQuality(50, 0.0, 0.2001, 0.0), config) == (
        "word_repetition",
        "word 5-gram repetition 0.200 > 0.2",
    )


def test_config_from_params_and_validation() -> None:
    config = parse_section(GdeltArticlesConfig, load_params(ROOT / "params.yaml"), "gdelt_articles")
    assert config.news_config().min_words == 0  # the word count is judged once, by the quality check
    with pytest.raises(ValueError, match="max_word_repetition"):
        GdeltArticlesConfig(max_word_repetition=1.5)
    with pytest.raises(ValueError, match="min_words"):
        GdeltArticlesConfig(min_words=-1)


def corpus_row(url: str, text: str, published: datetime) -> dict[str, Any]:
    url = canonical_url(url)
    return {
        "id": content_id(url, text),
        "url": url,
        "source_domain": source_domain(url),
        "title": "A title",
        "text": text,
        "publish_date": published,
        "publish_month": published.strftime("%Y-%m"),
        "date_source": "html_meta",
        "date_precision": "day",
        "language": "en",
        "word_count": len(text.split()),
        "crawl_date": published,
        "source_format": "warc",
        "source_file": "CC-NEWS-20250501.warc.gz",
        "source_offset": 0,
    }


MAY_2 = datetime(2025, 5, 2, tzinfo=UTC)
CORPUS = table_from_rows(
    [
        corpus_row("https://www.herald.example/water-deal", NORMAL, MAY_2),
        # a later copy of the same article (another crawl): the earlier one is linked
        corpus_row(
            "https://herald.example/water-deal?ref=x", NORMAL + " Updated.", datetime(2025, 5, 3, tzinfo=UTC)
        ),
        corpus_row("https://herald.example/spam", REPETITIVE, MAY_2),
        corpus_row("https://herald.example/short", SHORT, MAY_2),
    ],
    ARTICLE_SCHEMA,
)


def link(
    urls: list[str], config: GdeltArticlesConfig, fetcher: Fetcher | None = None
) -> tuple[pa.Table, StageLedger]:
    ledger = StageLedger("gdelt_articles")
    table = link_articles(urls, CORPUS, config, fetcher, ledger)
    assert table.schema == GDELT_ARTICLE_SCHEMA
    ledger.check_balance()
    return table, ledger


def test_linking_by_canonical_url_and_cleaning() -> None:
    urls = [
        canonical_url("http://herald.example/water-deal?utm_source=gdelt"),  # scheme, www, tracking differ
        canonical_url("https://herald.example/spam"),
        canonical_url("https://herald.example/short"),
        canonical_url("https://elsewhere.example/missing"),
        canonical_url("https://herald.example/spam"),  # a URL shared by several events counts once
    ]
    table, ledger = link(urls, GdeltArticlesConfig())
    rows = table.to_pylist()
    assert [row["url"] for row in rows] == ["http://herald.example/water-deal"]
    assert rows[0]["article_id"] == content_id(canonical_url("https://www.herald.example/water-deal"), NORMAL)
    assert rows[0]["origin"] == "ccnews" and rows[0]["text"] == NORMAL
    assert rows[0]["word_count"] == len(NORMAL.split())
    assert (ledger.items_in, ledger.items_out) == (4, 1)
    by_source = {reject.source: (reject.reason, reject.id) for reject in ledger.rejects}
    assert by_source == {
        "https://herald.example/spam": ("char_repetition", content_id("https://herald.example/spam")),
        "https://herald.example/short": ("too_few_words", content_id("https://herald.example/short")),
        "https://elsewhere.example/missing": (
            "not_in_corpus",
            content_id("https://elsewhere.example/missing"),
        ),
    }
    assert ledger.extra["linked_by"] == {"ccnews": 3}


def test_fetching_a_missing_url(server: FixtureServer, sleep: SleepRecorder) -> None:
    paragraphs = "".join(f"<p>{paragraph}</p>" for paragraph in NORMAL.split("\n"))
    page = f"<html><head><title>Water deal</title></head><body><article><h1>Water deal</h1>{paragraphs}</article></body></html>"
    url = canonical_url(put(server, "/world/water.html", page.encode()))
    gone = canonical_url(server.url("/world/gone.html"))
    config = GdeltArticlesConfig(fetch=True, retries=1, timeout_s=5.0)
    with Fetcher(config.news_config(), sleep=sleep) as fetcher:
        table, ledger = link([url, gone], config, fetcher)
    rows = table.to_pylist()
    assert [(row["url"], row["origin"]) for row in rows] == [(url, "fetched")]
    assert rows[0]["article_id"] == content_id(url, rows[0]["text"])
    assert "upstream dam" in rows[0]["text"]
    assert [(reject.reason, reject.source) for reject in ledger.rejects] == [("fetch_failed", gone)]


def test_fetch_off_never_touches_the_network(server: FixtureServer) -> None:
    url = canonical_url(put(server, "/world/water.html", b"<html></html>"))
    _table, ledger = link([url], GdeltArticlesConfig(fetch=False))
    assert [reject.reason for reject in ledger.rejects] == ["not_in_corpus"]
    assert server.requests() == []


def clean_event(event_id: int, url: str) -> dict[str, Any]:
    return {
        "global_event_id": event_id,
        "date": date(2025, 5, 2),
        "date_added": MAY_2,
        "subject": "USA",
        "object": "CHN",
        "subject_cameo": "USA",
        "object_cameo": "CHN",
        "event_code": "042",
        "relation": "042",
        "relation_root": "04",
        "quad_class": 1,
        "num_mentions": 60,
        "num_sources": 1,
        "num_articles": 1,
        "goldstein": 1.9,
        "avg_tone": 0.0,
        "source_url": url,
        "url": canonical_url(url),
    }


def test_stage_is_byte_identical_on_rerun(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from stages import gdelt_articles

    params = yaml.safe_load((ROOT / "params.yaml").read_text())
    params["months"] = ["2025-05"]
    params["gdelt_articles"]["fetch"] = False
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    write_parquet(CORPUS, tmp_path / "data/articles/2025-05.parquet")
    events = [
        clean_event(1, "https://herald.example/water-deal"),
        clean_event(2, "https://herald.example/spam"),
        clean_event(3, "https://herald.example/water-deal"),
        clean_event(4, "https://nowhere.example/x"),
    ]
    write_parquet(table_from_rows(events, CLEAN_EVENT_SCHEMA), tmp_path / "data/gdelt/clean/events.parquet")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["gdelt_articles"])

    def build() -> tuple[str, str]:
        assert gdelt_articles.main() == 0
        return tuple(  # type: ignore[return-value]
            hashlib.sha256((tmp_path / "data/gdelt" / name).read_bytes()).hexdigest()
            for name in ("articles.parquet", "articles_rejects.parquet")
        )

    assert build() == build()
    metrics = read_json(tmp_path / "reports/metrics/gdelt_articles.json")
    assert (metrics["items_in"], metrics["items_out"], metrics["linked"]) == (3, 1, 2)
    assert metrics["rejected_by_reason"] == {"char_repetition": 1, "not_in_corpus": 1}
    assert metrics["not_in_corpus"] == 1
    assert metrics["cleaned_out"] == {
        "too_few_words": 0,
        "char_repetition": 1,
        "word_repetition": 0,
        "special_chars": 0,
    }
