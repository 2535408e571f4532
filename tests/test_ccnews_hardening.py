"""CC-News input as it comes (issue 15): CJK text, charsets, truncated records, non-WARC files, size caps."""

# Chinese text and typographic punctuation are the point of several tests here.
# ruff: noqa: RUF001, RUF003

from __future__ import annotations

import io
import os
import tracemalloc
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from almanac.ccnews.extract import decode_page
from almanac.ccnews.filters import FilterConfig
from almanac.ccnews.ingest import FileTask, IngestConfig, file_kind, ingest_file
from almanac.core.text import word_count
from almanac.gdelt import doc_quality
from tests.support.warc_factory import good_page, warc_bytes

CONFIG = IngestConfig(
    filters=FilterConfig(domains=(), languages=(), min_words=100, min_publish_date="2025-01-01"),
    undated="crawl_date",
)
MIB = 1 << 20
# warcio inflates 16 KiB of compressed input per step, up to ~16 MiB of zeros (deflate's 1032:1 limit),
# held briefly in two copies: memory is bounded by that, not by the size a bomb inflates to (300 MiB).
PEAK_LIMIT = 100 * MIB


def run(path: Path, config: IngestConfig = CONFIG) -> tuple[list[dict[str, object]], dict[str, int]]:
    rows, ledger = ingest_file(FileTask(str(path), path.name, file_kind(path.name), config))
    ledger.check_balance()
    return rows, ledger.rejected_by_reason


def response(
    url: str,
    payload: bytes,
    content_type: str,
    http: dict[str, str] | None = None,
    warc: dict[str, str] | None = None,
) -> bytes:
    """One per-record gzipped WARC/1.0 response record (warcio's writer)."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True, warc_version="1.0")
    headers = StatusAndHeaders(
        "200 OK", [("Content-Type", content_type), *(http or {}).items()], protocol="HTTP/1.1"
    )
    record = writer.create_warc_record(
        url,
        "response",
        payload=io.BytesIO(payload),
        http_headers=headers,
        warc_headers_dict={"WARC-Date": "2025-05-20T10:00:00Z", **(warc or {})},
    )
    writer.write_record(record)
    return buffer.getvalue()


# --- 1. words of any script -------------------------------------------------------------------------


def test_word_count_counts_each_han_and_kana_character_and_whitespace_tokens_otherwise() -> None:
    assert word_count("The 東京 office") == 4  # The, 東, 京, office
    assert word_count("北京市政府今天宣布，新的地铁线路。") == 15  # 9 + 6 characters; ，and 。 separate
    assert word_count("東京スカイツリーは高い") == 11
    assert word_count("서울 시청은 오늘 발표했다") == 4  # Korean separates its words with spaces
    assert word_count("  a b\n c — café ") == 5  # no CJK: exactly str.split()
    assert doc_quality.word_count("北京 and 上海") == 5  # the GDELT cleaning counts the same way


CHINESE = (
    "北京市政府今天宣布，新的地铁线路将于明年六月正式开通运营。",
    "这条线路全长三十二公里，共设二十个车站，预计每天运送乘客约四十万人次。",
    "市交通委员会的负责人表示，新线路将大大缓解城市东部地区的交通压力。",
    "部分市民对票价调整表示担忧，但大多数受访者欢迎这一消息。",
)


def chinese_page(charset: str, extra: str = "") -> bytes:
    paragraphs = "".join(f"<p>{extra}{CHINESE[n % 4]}{CHINESE[(n + 1) % 4]}</p>" for n in range(6))
    return (
        f'<!DOCTYPE html><html lang="zh"><head><meta charset="{charset}"><title>北京地铁新线</title>'
        '<meta property="article:published_time" content="2025-05-12T08:00:00+00:00"></head>'
        f"<body><article><h1>北京地铁新线</h1>{paragraphs}</article></body></html>"
    ).encode("gbk" if charset != "utf-8" else "utf-8")


def test_a_chinese_article_is_kept_and_counted_in_characters(tmp_path: Path) -> None:
    path = tmp_path / "zh.warc.gz"
    path.write_bytes(response("https://news.example.cn/2025/05/12/a", chinese_page("utf-8"), "text/html"))
    rows, rejected = run(path)
    # Before: no line has 8 space-separated words, so the page was "no_extractable_text".
    assert rejected == {} and len(rows) == 1
    (row,) = rows
    assert row["language"] == "zh" and row["charset"] == "utf-8"
    assert row["word_count"] == word_count(str(row["text"])) > 300


# --- 2. charsets --------------------------------------------------------------------------------------


def test_gb2312_label_decodes_as_its_superset() -> None:
    # 镕 (in Premier Zhu Rongji's name) is GBK, not GB2312: a strict gb2312 decoder rejects the page.
    payload = chinese_page("gb2312", extra="朱镕基")
    decoded = decode_page(payload, "gb2312")
    assert (decoded.charset, decoded.source) == ("gb18030", "http") and "朱镕基" in decoded.text
    assert decode_page(payload, None).charset == "gb18030"  # the same label in <meta>


def test_utf8_bytes_under_a_latin1_label_are_read_as_utf8() -> None:
    payload = "<html><body><p>Zürich café – “quoted”</p></body></html>".encode()
    decoded = decode_page(payload, "iso-8859-1")
    assert decoded.text == "<html><body><p>Zürich café – “quoted”</p></body></html>"
    assert (decoded.charset, decoded.source) == ("utf-8", "detected")


def test_latin1_label_means_windows_1252_and_bom_wins_over_the_header() -> None:
    decoded = decode_page(b"<p>\x93quoted\x94 caf\xe9</p>", "iso-8859-1")  # 0x93/0x94: cp1252 curly quotes
    assert (decoded.text, decoded.charset, decoded.source) == ("<p>“quoted” café</p>", "cp1252", "http")
    decoded = decode_page(b"\xef\xbb\xbf<p>caf\xc3\xa9</p>", "iso-8859-1")
    assert (decoded.text, decoded.charset, decoded.source) == ("<p>café</p>", "utf-8", "bom")
    cyrillic = '<meta charset="windows-1251"><p>Москва</p>'.encode("cp1251")
    decoded = decode_page(cyrillic, None)
    assert (decoded.charset, decoded.source) == ("cp1251", "meta") and "Москва" in decoded.text


def test_charset_column_records_the_codec_used(tmp_path: Path) -> None:
    url, html = good_page(1)
    mislabelled = html.replace(b"harbour", "harbour café".encode())  # UTF-8 bytes
    path = tmp_path / "cs.warc.gz"
    path.write_bytes(
        response(url, mislabelled, "text/html; charset=ISO-8859-1")
        + response("https://news.example.cn/2025/05/12/b", chinese_page("gb2312", "朱镕基"), "text/html")
    )
    rows, rejected = run(path)
    assert rejected == {}  # before: the gb2312 page was undecodable_payload
    by_charset = {row["charset"]: row for row in rows}
    assert set(by_charset) == {"utf-8", "gb18030"}
    assert "harbour café" in str(by_charset["utf-8"]["text"])  # before: "cafÃ©"
    assert "朱镕基" in str(by_charset["gb18030"]["text"])


# --- 3. truncated records -----------------------------------------------------------------------------


def page_with_trailer(number: int) -> tuple[str, bytes]:
    """A good page followed by ~6 KB of incompressible script, so a cut near the end of the gzip member
    removes only trailer bytes and leaves the whole article."""
    url, html = good_page(number)
    trailer = b"<script>var t='" + os.urandom(3000).hex().encode() + b"';</script>"
    return url, html.replace(b"</body>", trailer + b"</body>")


def test_truncated_record_is_salvaged_with_a_flag_or_rejected_by_param(tmp_path: Path) -> None:
    data = warc_bytes([good_page(0), page_with_trailer(1)])
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data[:-1500])
    rows, rejected = run(path)
    assert rejected == {} and len(rows) == 2  # before: the second was rejected truncated_record
    flags = {str(row["url"]).rsplit("-", 1)[1]: row["truncated"] for row in rows}
    assert flags == {"0": False, "1": True}
    cut_row = next(row for row in rows if row["truncated"])
    assert "northern channel" in str(cut_row["text"]) or "harbour bridge" in str(cut_row["text"])
    rows, rejected = run(path, replace(CONFIG, truncated="reject"))
    assert len(rows) == 1 and rejected == {"truncated_record": 1}


def test_salvaged_record_without_article_text_is_a_truncated_record_reject(tmp_path: Path) -> None:
    data = warc_bytes([good_page(0), good_page(1)])
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(data[:-400])  # the cut leaves only the start of the second page's HTML
    rows, rejected = run(path)
    assert len(rows) == 1 and rejected == {"truncated_record": 1}


def test_file_cut_inside_the_last_records_headers_is_reported(tmp_path: Path) -> None:
    whole = warc_bytes([good_page(0)])
    last = response(*good_page(1), "text/html; charset=UTF-8")
    path = tmp_path / "cut.warc.gz"
    path.write_bytes(whole + last[:60])  # a few bytes of the next member: its WARC header is incomplete
    rows, rejected = run(path)
    # Before: warcio ended quietly and the record vanished without a reject.
    assert len(rows) == 1 and rejected == {"truncated_file": 1}


def test_warc_truncated_header_flags_the_row(tmp_path: Path) -> None:
    url, html = good_page(2)
    path = tmp_path / "marked.warc.gz"
    path.write_bytes(response(url, html, "text/html; charset=UTF-8", warc={"WARC-Truncated": "length"}))
    rows, _ = run(path)
    assert len(rows) == 1 and rows[0]["truncated"] is True


# --- 4. not a WARC ------------------------------------------------------------------------------------


@pytest.mark.parametrize("gzipped", [False, True])
def test_plain_text_named_warc_gz_is_one_not_a_warc_reject(tmp_path: Path, gzipped: bool) -> None:
    # Lines of five or more tokens parse as ARC headers in warcio: before, one broken_http_header each.
    text = b"".join(b"2025-05-01 12:00:%02d INFO worker %d started\n\n" % (n % 60, n) for n in range(101))
    path = tmp_path / "log.warc.gz"
    path.write_bytes(zlib.compress(text, wbits=31) if gzipped else text)
    rows, rejected = run(path)
    assert rows == [] and rejected == {"not_a_warc": 1}


# --- 5. size caps -------------------------------------------------------------------------------------


def zeros_compressor() -> zlib._Compress:
    """gzip for runs of zero bytes: the run-length strategy finds the same distance-1 matches as the default
    one (the same ~1000:1) at ~40% of its CPU, ~1 s less per 300 MiB bomb."""
    return zlib.compressobj(9, zlib.DEFLATED, 31, 9, zlib.Z_RLE)


def bomb_member(url: str, http_head: bytes, body: int, content_length: int | None = None) -> bytes:
    """A gzip member holding a response record whose body is ``body`` zero bytes (~1000:1 compressed)."""
    length = len(http_head) + body if content_length is None else content_length
    header = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {url}\r\nWARC-Date: 2025-05-20T10:00:00Z\r\n"
        "WARC-Record-ID: <urn:uuid:3f1b2c3d-0000-4000-8000-000000000009>\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {length}\r\n\r\n"
    ).encode()
    compressor = zeros_compressor()
    parts = [compressor.compress(header + http_head)]
    zeros = bytes(MIB)
    parts.extend(compressor.compress(zeros) for _ in range(body // MIB))
    parts.append(compressor.compress(b"\r\n\r\n") + compressor.flush())
    return b"".join(parts)


def peak_traced(path: Path, config: IngestConfig) -> tuple[int, list[dict[str, object]], dict[str, int]]:
    # One good page first, untraced: the extractor's one-time loads (trafilatura, its ~70 MiB language
    # model) happen at the first page a process extracts, and would count here only when this test runs
    # first in its worker. The peak is then what reading the hostile record costs.
    warm_up = path.with_name("warm-up.warc.gz")
    warm_up.write_bytes(warc_bytes([good_page(1)]))
    run(warm_up, config)
    tracemalloc.start()
    try:
        rows, rejected = run(path, config)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak, rows, rejected


def test_gzip_bomb_record_is_rejected_without_being_loaded(tmp_path: Path) -> None:
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n"
    bomb = bomb_member("https://www.testgazette.example/bomb", http, 300 * MIB)
    path = tmp_path / "bomb.warc.gz"
    path.write_bytes(bomb + warc_bytes([good_page(3)]))
    assert path.stat().st_size < 600_000  # a few hundred KB that inflate to 300 MiB
    peak, rows, rejected = peak_traced(path, CONFIG)
    assert rejected == {"record_too_large": 1} and len(rows) == 1  # the record after it is still read
    assert peak < PEAK_LIMIT, f"peak {peak / MIB:.0f} MiB"  # before: the whole 300 MiB payload was read


def test_content_encoding_bomb_is_page_too_large_with_bounded_memory(tmp_path: Path) -> None:
    # A small record (its block is compressed) whose HTTP body inflates to 300 MiB by Content-Encoding.
    compressor = zeros_compressor()
    body = b"".join(compressor.compress(bytes(MIB)) for _ in range(300)) + compressor.flush()
    path = tmp_path / "encoded.warc.gz"
    path.write_bytes(
        response("https://www.testgazette.example/enc", body, "text/html", http={"Content-Encoding": "gzip"})
    )
    peak, rows, rejected = peak_traced(path, replace(CONFIG, max_page_bytes=MIB))
    assert rows == [] and rejected == {"page_too_large": 1}
    assert peak < PEAK_LIMIT, f"peak {peak / MIB:.0f} MiB"


def test_header_line_bomb_stays_bounded(tmp_path: Path) -> None:
    # 300 MiB of zeros where the HTTP header lines should be: no newline, so warcio's readline would
    # accumulate it all; lines are cut at 1 MiB and the record is over max_record_bytes.
    bomb = bomb_member("https://www.testgazette.example/h", b"HTTP/1.1 200 OK\r\nX-Junk: ", 300 * MIB)
    path = tmp_path / "header.warc.gz"
    path.write_bytes(bomb)
    peak, rows, rejected = peak_traced(path, CONFIG)
    assert rows == [] and sum(rejected.values()) == 1
    assert peak < PEAK_LIMIT, f"peak {peak / MIB:.0f} MiB"


def test_page_and_article_caps(tmp_path: Path) -> None:
    long_page = good_page(4)
    path = tmp_path / "caps.warc.gz"
    path.write_bytes(warc_bytes([long_page]))
    size = len(long_page[1])
    assert run(path, replace(CONFIG, max_page_bytes=size - 1))[1] == {"page_too_large": 1}
    assert len(run(path, replace(CONFIG, max_page_bytes=size))[0]) == 1
    words = word_count(str(run(path)[0][0]["text"]))
    assert run(path, replace(CONFIG, max_article_words=words - 1))[1] == {"article_too_long": 1}
    assert len(run(path, replace(CONFIG, max_article_words=words))[0]) == 1
    assert run(path, replace(CONFIG, max_record_bytes=size))[1] == {"record_too_large": 1}


def test_caps_and_policy_are_validated_at_start_up() -> None:
    with pytest.raises(ValueError, match="truncated"):
        IngestConfig(truncated="keep")
    with pytest.raises(ValueError, match="max_article_words"):
        IngestConfig(max_article_words=0)
