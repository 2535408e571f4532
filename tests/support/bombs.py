"""Inputs built to break a reader: size bombs (written in streaming steps, never held whole) and
records that make a parser raise. Shared by the tests (small sizes) and bench/ccnews_bombs.py (the
sizes of issue 24)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path
from typing import Any

from tests.support.warc_factory import article_text

STEP = 1 << 20


def good_newsplease(number: int) -> dict[str, Any]:
    return {
        "url": f"https://www.testgazette.example/2025/05/12/np-{number}",
        "title": f"Harbour story {number}",
        "maintext": article_text(number),
        "date_publish": "2025-05-12 08:00:00",
        "date_download": "2025-05-20 10:00:00",
        "language": "en",
    }


def _long_line_pieces(line_bytes: int) -> tuple[bytes, bytes, int]:
    head = b'{"url": "https://www.testgazette.example/bomb", "maintext": "'
    tail = b'"}'
    return head, tail, line_bytes - len(head) - len(tail)


def write_long_line_jsonl(path: Path, line_bytes: int, after: int = 1) -> None:
    """A news-please file whose first line is ``line_bytes`` long (gzipped when the name ends ``.gz``),
    then ``after`` good lines. Written a MiB at a time."""
    head, tail, filler = _long_line_pieces(line_bytes)
    gzipped = path.name.endswith(".gz")
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31) if gzipped else None
    chunk = b"a" * STEP
    with open(path, "wb") as out:

        def put(data: bytes) -> None:
            out.write(compressor.compress(data) if compressor else data)

        put(head)
        for _ in range(filler // STEP):
            put(chunk)
        put(b"a" * (filler % STEP) + tail + b"\n")
        for number in range(after):
            put(json.dumps(good_newsplease(number)).encode() + b"\n")
        if compressor:
            out.write(compressor.flush())


def header_lines_member(url: str, header_bytes: int) -> bytes:
    """One gzip member: a WARC response record whose WARC header block holds ``header_bytes`` of short
    ``X-Pad: 1`` lines (millions of pairs for warcio to keep) before its real headers."""
    line = b"X-Pad: 1\r\n"
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)
    parts = [compressor.compress(b"WARC/1.0\r\nWARC-Type: response\r\n")]
    block = line * (STEP // len(line))
    for _ in range(header_bytes // len(block)):
        parts.append(compressor.compress(block))
    http = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>x</p>"
    parts.append(
        compressor.compress(
            f"WARC-Target-URI: {url}\r\nContent-Length: {len(http)}\r\n\r\n".encode() + http + b"\r\n\r\n"
        )
    )
    parts.append(compressor.flush())
    return b"".join(parts)


def nested_line(depth: int) -> bytes:
    """A news-please line whose maintext is a list nested ``depth`` deep (RecursionError in json)."""
    return b'{"url": "https://www.testgazette.example/n", "maintext": ' + b"[" * depth + b"]" * depth + b"}"


def huge_int_line(digits: int) -> bytes:
    """A line holding an integer of ``digits`` digits (ValueError: Python's int conversion limit)."""
    return b'{"url": "https://www.testgazette.example/i", "maintext": "x", "n": ' + b"7" * digits + b"}"


def far_future_download(number: int) -> dict[str, Any]:
    """A good line whose date_download at the end of year 9999, minus 5 h, overflows when made UTC."""
    return {**good_newsplease(number), "date_download": "9999-12-31 23:00:00-05:00"}
