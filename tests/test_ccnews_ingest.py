"""ccnews_ingest on files built in the true formats, good and broken."""

from __future__ import annotations

import gzip
from dataclasses import replace
from pathlib import Path

import pytest

from almanac.ccnews.filters import FilterConfig
from almanac.ccnews.ingest import FileTask, IngestConfig, file_kind, ingest_file
from almanac.core.ids import canonical_url, content_id
from tests.support.warc_factory import (
    article_html,
    article_text,
    good_page,
    raw_response_member,
    warc_bytes,
    write_newsplease,
)

CONFIG = IngestConfig(
    filters=FilterConfig(
        domains=("testgazette.example",), languages=("en",), min_words=100, min_publish_date="2025-01-01"
    ),
    undated="reject",
)
REAL_WARCS = Path(__file__).resolve().parents[2] / "shared" / "realdata" / "warc"


def run(path: Path, config: IngestConfig = CONFIG) -> tuple[list[dict[str, object]], dict[str, object]]:
    rows, ledger = ingest_file(FileTask(str(path), path.name, file_kind(path.name), config))
    metrics = ledger.metrics()  # also asserts items_in == items_out + rejected
    metrics["rejects"] = ledger.rejects
    return rows, metrics


def reasons(metrics: dict[str, object]) -> dict[str, int]:
    value = metrics["rejected_by_reason"]
    assert isinstance(value, dict)
    return value


def test_good_warc_yields_articles_and_counts_skipped_requests(tmp_path: Path) -> None:
    path = tmp_path / "good.warc.gz"
    path.write_bytes(warc_bytes([good_page(n) for n in range(3)]))
    rows, metrics = run(path)
    assert len(rows) == 3 and metrics["items_in"] == 3
    assert metrics["skipped_records_by_type"] == {"request": 3}
    url, _ = good_page(0)
    first = next(row for row in rows if row["url"] == canonical_url(url))
    assert first["source_domain"] == "testgazette.example"
    assert first["title"] == "Story number 0"
    assert first["publish_month"] == "2025-05" and str(first["publish_date"])[:10] == "2025-05-10"
    assert (first["date_source"], first["date_precision"]) == ("html_meta", "day")
    assert first["language"] == "en"
    assert "harbour bridge" in str(first["text"]) and "Copyright" not in str(first["text"])
    assert first["id"] == content_id(str(first["url"]), str(first["text"]))
    assert isinstance(first["word_count"], int) and first["word_count"] >= 100


def test_broken_http_header_is_rejected_and_neighbours_survive(tmp_path: Path) -> None:
    path = tmp_path / "mixed.warc.gz"
    broken = raw_response_member(
        "https://www.testgazette.example/x", b"\x00\x01garbage\xff\r\n\r\n<html></html>"
    )
    before = warc_bytes([good_page(1)])
    path.write_bytes(before + broken + warc_bytes([good_page(2)]))
    rows, metrics = run(path)
    assert len(rows) == 2
    assert reasons(metrics) == {"broken_http_header": 1}
    (reject,) = metrics["rejects"]  # type: ignore[misc]
    assert reject.source == f"mixed.warc.gz:{len(before)}"  # the byte offset of the broken member


def test_truncated_gzip_keeps_earlier_records(tmp_path: Path) -> None:
    data = warc_bytes([good_page(n) for n in range(3)])
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data[: len(data) - 200])
    rows, metrics = run(path, replace(CONFIG, truncated="reject"))  # salvage: tests/test_ccnews_hardening.py
    assert len(rows) == 2
    assert (
        set(reasons(metrics)) <= {"truncated_record", "truncated_file"}
        and sum(reasons(metrics).values()) == 1
    )


def test_non_utf8_payload_read_as_cp1252_or_rejected_unless_replace(tmp_path: Path) -> None:
    url, html = good_page(4)
    latin = html.replace(b"harbour", b"harb\xe9our")  # a Latin-1 byte inside a page declared UTF-8
    url_bad, html_bad = good_page(5)
    bad = html_bad.replace(b"harbour", b"harb\x81our")  # 0x81: invalid UTF-8, undefined in windows-1252
    path = tmp_path / "latin.warc.gz"
    path.write_bytes(warc_bytes([(url, latin), (url_bad, bad)]))
    rows, metrics = run(path)
    assert len(rows) == 1 and reasons(metrics) == {"undecodable_payload": 1}
    assert "harb\u00e9our" in str(rows[0]["text"]) and rows[0]["charset"] == "cp1252"
    rows, metrics = run(path, replace(CONFIG, decode_errors="replace"))
    assert len(rows) == 2 and "harb\ufffdour" in str(rows[0]["text"]) + str(rows[1]["text"])


def test_html_without_text_empty_file_and_non_warc(tmp_path: Path) -> None:
    empty_page = (
        b"<html><head><script>var a=1;</script></head><body><nav><a href='/'>Home</a></nav></body></html>"
    )
    page = tmp_path / "nav.warc.gz"
    page.write_bytes(warc_bytes([("https://www.testgazette.example/nav", empty_page)]))
    assert reasons(run(page)[1]) == {"no_extractable_text": 1}
    empty = tmp_path / "empty.warc.gz"
    empty.write_bytes(b"")
    assert reasons(run(empty)[1]) == {"empty_file": 1}
    log = tmp_path / "log.warc.gz"
    log.write_bytes(gzip.compress(b"2025-05-01 INFO started\n" * 20))
    assert reasons(run(log)[1]) == {"not_a_warc": 1}
    text = tmp_path / "page.warc"
    text.write_bytes(b"<html>not a warc</html>")
    assert reasons(run(text)[1]) == {"not_a_warc": 1}


def test_filters_reject_with_reasons(tmp_path: Path) -> None:
    other_domain = good_page(6, domain="www.elsewhere.example")
    short = (
        "https://www.testgazette.example/2025/05/11/short",
        article_html("Short", article_text(1, words=20), "2025-05-11T08:00:00+00:00"),
    )
    german = (
        "https://www.testgazette.example/2025/05/12/de",
        article_html(
            "Brücke",
            " ".join(
                f"Der Stadtrat hat am {day}. Mai über den Bau der neuen Brücke im Hafen von Ostfeld beraten."
                for day in range(1, 13)
            ),
            "2025-05-12T08:00:00+00:00",
            lang="de",
        ),
    )
    old = good_page(7, month="2024-11")
    undated = ("https://www.testgazette.example/undated", article_html("Undated", article_text(8), ""))
    path = tmp_path / "filters.warc.gz"
    path.write_bytes(warc_bytes([other_domain, short, german, old, undated, good_page(9)]))
    rows, metrics = run(path)
    assert len(rows) == 1
    assert reasons(metrics) == {
        "domain_not_allowed": 1,
        "language": 1,
        "too_short": 1,
        "publish_date_out_of_window": 1,
        "no_publish_date": 1,
    }
    rows, metrics = run(path, replace(CONFIG, undated="crawl_date"))
    assert len(rows) == 2 and "no_publish_date" not in reasons(metrics)
    undated_row = next(row for row in rows if str(row["url"]).endswith("/undated"))
    assert str(undated_row["publish_date"])[:10] == "2025-05-20"  # the WARC-Date of the record
    assert (undated_row["date_source"], undated_row["date_precision"]) == ("crawl_date", "upper_bound")


def test_newsplease_jsonl_good_and_bad_lines(tmp_path: Path) -> None:
    good = {
        "url": "https://www.testgazette.example/2025/06/02/np",
        "title": "From news-please",
        "maintext": article_text(3),
        "date_publish": "2025-06-02 09:30:00",
        "date_download": "2025-06-03 00:00:00",
        "source_domain": "testgazette.example",
        "language": "en",
    }
    path = tmp_path / "np.jsonl"
    write_newsplease(
        path,
        [
            good,
            b'{"url": "https://www.testgazette.example/broken", "maintext": ',
            {**good, "maintext": ""},
            b'{"url": "https://www.testgazette.example/x", "maintext": "caf\xe9"}',
            {**good, "url": "https://www.testgazette.example/d", "date_publish": "yesterday"},
        ],
    )
    rows, metrics = run(path)
    assert len(rows) == 1 and rows[0]["title"] == "From news-please" and rows[0]["source_offset"] == 1
    assert str(rows[0]["publish_date"]) == "2025-06-02 09:30:00+00:00"
    assert reasons(metrics) == {
        "invalid_json": 1,
        "missing_field": 1,
        "undecodable_payload": 1,
        "bad_date": 1,
    }
    sources = sorted(reject.source for reject in metrics["rejects"])  # type: ignore[attr-defined]
    assert sources == ["np.jsonl:2", "np.jsonl:3", "np.jsonl:4", "np.jsonl:5"]


def test_unknown_file_type_is_a_reject(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("hello")
    assert reasons(run(path)[1]) == {"unknown_file_type": 1}


@pytest.mark.skipif(not REAL_WARCS.is_dir(), reason="../shared/realdata/warc not present in this checkout")
@pytest.mark.parametrize("name", ["warcio_example.warc.gz", "ccmain-2024-22_whirlwind.warc.gz"])
def test_real_warc_samples_are_read_and_fully_accounted(name: str) -> None:
    config = IngestConfig(filters=FilterConfig(domains=(), languages=(), min_words=1), undated="crawl_date")
    path = REAL_WARCS / name
    rows, ledger = ingest_file(FileTask(str(path), name, "warc", config))
    ledger.check_balance()
    skipped = ledger.extra["skipped_records_by_type"]
    if name == "warcio_example.warc.gz":  # 2 warcinfo, 2 request, 1 response, 1 revisit
        assert skipped == {"warcinfo": 2, "request": 2, "revisit": 1}
        assert len(rows) == 1 and rows[0]["url"] == "http://example.com/"
        assert "illustrative examples" in str(rows[0]["text"])
        assert str(rows[0]["publish_date"])[:10] == "2017-03-06"  # no date in the page: the crawl date
    else:  # warcinfo, request, response, metadata
        assert skipped == {"warcinfo": 1, "request": 1, "metadata": 1}
        assert len(rows) == 1 and rows[0]["source_domain"] == "an.wikipedia.org"
        assert rows[0]["title"] is not None and "Escopete" in str(rows[0]["title"])
