"""Build small WARC / news-please files in the true formats, including deliberately broken ones."""

from __future__ import annotations

import io
import json
import zlib
from collections.abc import Sequence
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

SENTENCES = (
    "The regional council of Eastvale voted on Tuesday to approve the new harbour bridge.",
    "Mayor Lena Okafor said construction would begin in September and last two years.",
    "Opponents argued that the cost, estimated at 240 million euros, was far too high.",
    "The transport ministry in Brenford confirmed it would cover a third of the budget.",
    "Local fishermen asked for guarantees that the works would not block the northern channel.",
    "Engineers from Halvorsen Group presented a revised design with a higher central span.",
    "A final decision on the tolls is expected from the council before the end of June.",
)


def article_text(seed: int, words: int = 160) -> str:
    """Deterministic English prose of about ``words`` words (distinct per seed)."""
    out: list[str] = []
    index = seed
    while sum(len(s.split()) for s in out) < words:
        out.append(SENTENCES[index % len(SENTENCES)].replace("Tuesday", f"day {index}"))
        index += 3
    return " ".join(out)


def article_html(title: str, text: str, published: str, lang: str = "en") -> bytes:
    paragraphs = "".join(f"<p>{sentence}.</p>" for sentence in text.split(". ") if sentence)
    return (
        f'<!DOCTYPE html><html lang="{lang}"><head><meta charset="utf-8"><title>{title}</title>'
        f'<meta property="article:published_time" content="{published}"></head><body>'
        '<nav><a href="/">Home</a> <a href="/world">World</a></nav>'
        f"<article><h1>{title}</h1>{paragraphs}</article>"
        "<footer>Copyright The Test Gazette</footer></body></html>"
    ).encode()


def response_record(
    writer: WARCWriter, url: str, payload: bytes, content_type: str = "text/html; charset=UTF-8"
) -> None:
    headers = StatusAndHeaders("200 OK", [("Content-Type", content_type)], protocol="HTTP/1.1")
    record = writer.create_warc_record(
        url,
        "response",
        payload=io.BytesIO(payload),
        http_headers=headers,
        warc_headers_dict={"WARC-Date": "2025-05-20T10:00:00Z"},
    )
    writer.write_record(record)


def request_record(writer: WARCWriter, url: str) -> None:
    headers = StatusAndHeaders(
        "GET / HTTP/1.1", [("Host", "example")], protocol="HTTP/1.1", is_http_request=True
    )
    record = writer.create_warc_record(url, "request", payload=io.BytesIO(b""), http_headers=headers)
    writer.write_record(record)


def raw_response_member(url: str, http_block: bytes) -> bytes:
    """One gzip member holding a response record with an arbitrary (possibly broken) HTTP block."""
    header = (
        "WARC/1.0\r\nWARC-Type: response\r\n"
        f"WARC-Target-URI: {url}\r\nWARC-Date: 2025-05-20T10:00:00Z\r\n"
        "WARC-Record-ID: <urn:uuid:3f1b2c3d-0000-4000-8000-000000000001>\r\n"
        "Content-Type: application/http; msgtype=response\r\n"
        f"Content-Length: {len(http_block)}\r\n\r\n"
    ).encode()
    compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
    return compressor.compress(header + http_block + b"\r\n\r\n") + compressor.flush()


def warc_bytes(pages: Sequence[tuple[str, bytes]]) -> bytes:
    """Per-record gzipped WARC/1.0 with a request + response per page."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True, warc_version="1.0")
    for url, html in pages:
        request_record(writer, url)
        response_record(writer, url, html)
    return buffer.getvalue()


def good_page(
    number: int, month: str = "2025-05", domain: str = "www.testgazette.example"
) -> tuple[str, bytes]:
    day = 10 + number % 15
    url = f"https://{domain}/{month.replace('-', '/')}/{day:02d}/story-{number}"
    html = article_html(f"Story number {number}", article_text(number), f"{month}-{day:02d}T08:00:00+00:00")
    return url, html


def write_newsplease(path: Path, records: Sequence[dict[str, object] | bytes]) -> None:
    with open(path, "wb") as handle:
        for record in records:
            handle.write(record if isinstance(record, bytes) else json.dumps(record).encode())
            handle.write(b"\n")
