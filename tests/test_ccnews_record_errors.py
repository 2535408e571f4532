"""Issue 24: one record's exception is its own reject, and every size cap holds on small bombs.

The full-size bombs (a 1 GiB line in 1.1 MB of gzip, a 500 MB line, 100 MB of WARC header lines) are
measured by bench/ccnews_bombs.py in subprocesses (peak RSS); here the same shapes are scaled down under
lowered caps, so each test runs in well under a second.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest

from almanac.ccnews.charset_labels import ENCODINGS, LABEL_CODECS, codec_for_label
from almanac.ccnews.extract import decode_page
from almanac.ccnews.filters import FilterConfig
from almanac.ccnews.ingest import FileTask, IngestConfig, discover_files, file_kind, ingest_file
from almanac.ccnews.jsonl import read_json_objects
from almanac.ccnews.warc import read_warc
from tests.support.bombs import (
    far_future_download,
    good_newsplease,
    header_lines_member,
    huge_int_line,
    nested_line,
    write_long_line_jsonl,
)
from tests.support.warc_factory import article_html, article_text, good_page, warc_bytes, write_newsplease

CONFIG = IngestConfig(
    filters=FilterConfig(domains=(), languages=(), min_words=100, min_publish_date="2025-01-01"),
)
NON_TEXT_CODECS = ("hex", "rot13", "base64", "zlib", "undefined", "bz2", "uu", "quopri", "utf-32", "latin-1")


def run(path: Path, config: IngestConfig = CONFIG) -> tuple[list[dict[str, object]], list[tuple[str, str]]]:
    rows, ledger = ingest_file(FileTask(str(path), path.name, file_kind(path.name), config))
    ledger.check_balance()
    return rows, [(reject.reason, reject.detail) for reject in ledger.rejects]


@pytest.mark.parametrize("label", NON_TEXT_CODECS)
def test_a_label_outside_the_whatwg_table_is_treated_as_absent(label: str) -> None:
    page = f'<meta charset="{label}"><p>café</p>'.encode()
    # Before: codecs.lookup accepted these and decode raised LookupError (or garbled the page).
    assert decode_page(page, label) == decode_page(page, None)
    assert decode_page(page, label).charset == "utf-8" and "café" in decode_page(page, label).text


def test_the_label_table_is_the_whatwg_one() -> None:
    # Counts from the Encoding Standard: 40 encodings, 228 labels, none listed twice.
    assert len(ENCODINGS) == 40
    labels = [label for _codec, listed in ENCODINGS.values() for label in listed.split()]
    assert len(labels) == len(set(labels)) == 228
    assert codec_for_label(" ISO-8859-1\t") == "cp1252" and codec_for_label("GB2312") == "gb18030"
    assert codec_for_label("x-user-defined") is None and codec_for_label("iso-2022-kr") is None
    assert {"hex", "rot13", "utf-32", "latin-1", "cp437"}.isdisjoint(LABEL_CODECS)


@pytest.mark.parametrize("where", ["http", "meta"])
def test_non_text_codec_labels_in_a_warc_keep_the_page(tmp_path: Path, where: str) -> None:
    pages = []
    for number, label in enumerate(("hex", "rot13", "base64", "zlib", "undefined")):
        url, html = good_page(number)
        if where == "meta":
            html = html.replace(b'<meta charset="utf-8">', f'<meta charset="{label}">'.encode())
        pages.append((url, html, f"text/html; charset={label}" if where == "http" else "text/html"))
    path = tmp_path / "labels.warc.gz"
    path.write_bytes(_warc_with_types(pages))
    rows, rejects = run(path)
    assert rejects == [] and len(rows) == 5  # before: LookupError stopped the stage at the first page
    assert {row["charset"] for row in rows} == {"utf-8"}


def _warc_with_types(pages: list[tuple[str, bytes, str]]) -> bytes:
    import io

    from warcio.warcwriter import WARCWriter

    from tests.support.warc_factory import response_record

    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True, warc_version="1.0")
    for url, html, content_type in pages:
        response_record(writer, url, html, content_type)
    return buffer.getvalue()


def test_newsplease_lines_that_make_python_raise_are_their_own_rejects(tmp_path: Path) -> None:
    path = tmp_path / "crash.jsonl"
    write_newsplease(
        path,
        [
            good_newsplease(1),
            nested_line(100_000),
            huge_int_line(100_000),
            far_future_download(2),
            good_newsplease(3),
        ],
    )
    rows, rejects = run(path)
    assert len(rows) == 2  # the lines around the three are kept
    reasons = [reason for reason, _ in rejects]
    assert reasons == ["record_error", "record_error", "bad_date"]
    assert rejects[0][1].startswith("RecursionError: ")
    assert rejects[1][1].startswith("ValueError: Exceeds the limit")
    assert rejects[2][1] == "OverflowError: date value out of range"


def test_a_line_over_the_cap_is_skipped_unkept_and_rejected_with_its_size(tmp_path: Path) -> None:
    for name in ("long.jsonl", "long.jsonl.gz"):
        path = tmp_path / name
        write_long_line_jsonl(path, 3_000_000, after=2)
        rows, rejects = run(path, replace(CONFIG, max_line_bytes=1_000_000))
        assert len(rows) == 2
        assert rejects == [("line_too_long", "line of 3000000 bytes > max_line_bytes 1000000")]


def test_a_long_line_across_chunk_edges_is_rejected_and_its_neighbours_kept(tmp_path: Path) -> None:
    # Lines of 6 and 2^21 + 3 bytes around a good one; the long one spans three of the reader's 1 MiB chunks.
    path = tmp_path / "edges.jsonl"
    good = json.dumps(good_newsplease(1)).encode()
    path.write_bytes(b"x" * 6 + b"\n" + good + b"\n" + b"z" * ((1 << 21) + 3) + b"\n" + good)
    items = list(read_json_objects(path, "edges", max_line_bytes=len(good)))
    assert [getattr(item, "reason", "row") for item in items] == [
        "invalid_json",
        "row",
        "line_too_long",
        "row",
    ]
    assert items[2].detail == f"line of {(1 << 21) + 3} bytes > max_line_bytes {len(good)}"
    assert [item.source for item in items] == ["edges:1", "edges:2", "edges:3", "edges:4"]


def test_a_field_over_the_cap_is_rejected_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "field.jsonl"
    big = {**good_newsplease(1), "description": "é" * 600}  # 1,200 UTF-8 bytes
    write_newsplease(path, [big, good_newsplease(2)])
    # Both maintexts are about 1,010 bytes: under the cap of 1,100, which the 1,200-byte field is over.
    assert max(len(str(good_newsplease(n)["maintext"]).encode()) for n in (1, 2)) < 1_100
    rows, rejects = run(path, replace(CONFIG, max_field_bytes=1_100))
    assert len(rows) == 1
    assert rejects == [("field_too_large", "field 'description' of 1200 bytes > max_field_bytes 1100")]


def test_warc_header_lines_bomb_is_rejected_and_the_next_member_read(tmp_path: Path) -> None:
    path = tmp_path / "headers.warc.gz"
    path.write_bytes(
        warc_bytes([good_page(1)])
        + header_lines_member("https://www.testgazette.example/h", 4 << 20)
        + warc_bytes([good_page(2)])
    )
    rows, rejects = run(path, replace(CONFIG, max_header_bytes=1 << 20))
    assert len(rows) == 2  # the records before and after the bomb
    assert rejects == [("header_too_large", "header block over max_header_bytes 1048576")]


def test_a_plain_warc_stops_at_a_header_bomb_and_says_so(tmp_path: Path) -> None:
    import gzip

    path = tmp_path / "headers.warc"
    path.write_bytes(
        gzip.decompress(warc_bytes([good_page(1)]))
        + gzip.decompress(header_lines_member("https://www.testgazette.example/h", 2 << 20))
    )
    items = list(read_warc(path, path.name))
    reasons = [getattr(item, "reason", None) for item in items]
    assert reasons[-1] == "header_too_large" and "cannot be framed" in items[-1].detail  # type: ignore[union-attr]


def test_a_fifo_in_the_raw_folder_is_rejected_without_being_opened(tmp_path: Path) -> None:
    month = tmp_path / "2025-05"
    month.mkdir()
    (month / "a.warc.gz").write_bytes(warc_bytes([good_page(1)]))
    os.mkfifo(month / "b.warc.gz")  # opening it for reading would block forever: no writer
    results = [run(path) for path, _kind in discover_files(tmp_path, "2025-05")]
    assert len(results[0][0]) == 1
    assert results[1] == ([], [("not_a_regular_file", "a FIFO, not a regular file: not opened")])


def test_an_exception_inside_extraction_is_the_page_s_reject(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from almanac.ccnews.extract import Extracted, extract_article

    def explode(html: str, url: str) -> Extracted | None:
        if "story-2" in url:
            raise RecursionError("maximum recursion depth exceeded")
        return extract_article(html, url)

    monkeypatch.setattr("almanac.ccnews.ingest.extract_article", explode)
    path = tmp_path / "pages.warc.gz"
    path.write_bytes(warc_bytes([good_page(1), good_page(2), good_page(3)]))
    rows, rejects = run(path)
    assert len(rows) == 2
    assert rejects == [("record_error", "RecursionError: maximum recursion depth exceeded")]


def test_a_page_html_with_a_huge_label_is_fine() -> None:
    page = article_html("t", article_text(1), "2025-05-01").replace(b"utf-8", b"x" * 5000)
    assert decode_page(page, "y" * 5000).charset == "utf-8"


def test_a_record_warcio_fails_on_is_a_record_error_and_the_next_member_is_read(tmp_path: Path) -> None:
    # Found by the fuzz suite: a request record with no WARC-Target-URI made warcio raise AttributeError.
    import zlib

    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    odd = compressor.compress(b"WARC/1.0\r\nWARC-Type: request\r\n\r\nGET / HTTP/1.1\r\n\r\n")
    path = tmp_path / "odd.warc.gz"
    path.write_bytes(warc_bytes([good_page(1)]) + odd + compressor.flush() + warc_bytes([good_page(2)]))
    rows, rejects = run(path)
    assert len(rows) == 2
    assert [reason for reason, _ in rejects] == ["record_error"]
    assert rejects[0][1].startswith("AttributeError: ")
