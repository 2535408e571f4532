"""Size caps and per-page isolation of the Wikipedia dump reader and the WCEP readers (issue 24)."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import tracemalloc
import zlib
from pathlib import Path

import pytest

from almanac.ccnews.records import Unreadable
from almanac.wcep.days import parse_day_directory
from almanac.wcep.ingest import WcepIngestConfig, ingest_wcep
from almanac.wcep.mds import MdsEvent, read_wcep_mds
from almanac.wiki.capped_xml import CappedXml
from almanac.wiki.dump import WikiPage, read_dump
from almanac.wiki.ingest import DumpTask, ingest_dump

HEAD = (
    b'<mediawiki xmlns="http://www.mediawiki.org/xml/export-0.11/"><siteinfo><sitename>W</sitename>'
    b"<dbname>testwiki</dbname></siteinfo>\n"
)
WORDS = b"alpha beta gamma delta epsilon zeta eta theta iota kappa "  # 10 words, 57 bytes


def page(page_id: int, text: bytes, title: str = "", namespace: int = 0, ns_text: str = "") -> bytes:
    title = title or f"Page {page_id}"
    return (
        (
            f"<page><title>{title}</title><ns>{ns_text or namespace}</ns><id>{page_id}</id><revision>"
            f"<id>{page_id}0</id><timestamp>2025-05-01T10:00:00Z</timestamp><model>wikitext</model>"
            '<text xml:space="preserve">'
        ).encode()
        + text
        + b"</text></revision></page>\n"
    )


def dump(*pages: bytes) -> bytes:
    return HEAD + b"".join(pages) + b"</mediawiki>\n"


class Trickle(io.RawIOBase):
    """A source that serves at most ``step`` bytes a read, so tags and entities straddle reads."""

    def __init__(self, data: bytes, step: int) -> None:
        self._data, self._step, self._at = data, step, 0

    def read(self, size: int | None = -1) -> bytes:
        size = -1 if size is None else size
        piece = self._data[self._at : self._at + min(self._step, size if size >= 0 else self._step)]
        self._at += len(piece)
        return piece


def through(data: bytes, cap: int, step: int = 7) -> tuple[bytes, CappedXml]:
    capped = CappedXml(Trickle(data, step), cap, cap)
    out = bytearray()
    while piece := capped.read(1000):
        out += piece
    return bytes(out), capped


# -- the capped stream --------------------------------------------------------------------------------


def test_runs_within_the_cap_pass_unchanged_across_read_boundaries() -> None:
    data = (
        b'<?xml version="1.0"?>\n<mediawiki a="x>y" b=\'>\'><page><t/><text k="1">caf\xc3\xa9 &amp; &#233;'
        b"<![CDATA[ <not a tag> ]]><!-- a > b --></text><e></e></page></mediawiki>"
    )
    for step in (1, 2, 3, 7, 64):
        assert through(data, cap=1000, step=step)[0] == data


def test_a_run_over_the_cap_is_emptied_and_reported_with_its_size() -> None:
    big = b"word &amp; " * 300  # 3300 bytes
    data = (
        b"<mediawiki><page><title>a</title><text>"
        + big
        + b"</text></page><page><text>small</text></page></mediawiki>"
    )
    out, capped = through(data, cap=1000, step=13)
    assert out == data.replace(big, b"")
    assert capped.oversize == {1: ("text", len(big))}  # the first page, its <text>, all 3300 bytes
    assert capped.outside == []


def test_a_huge_tag_stops_the_stream_with_token_too_large() -> None:
    data = b"<mediawiki><page><text a='" + b"x" * 300_000 + b"'>t</text></page></mediawiki>"
    with pytest.raises(ValueError, match="token of more than 100000 bytes"):
        through(data, cap=100_000, step=70_000)


# -- read_dump ----------------------------------------------------------------------------------------


def test_over_cap_page_is_rejected_with_its_size_and_its_neighbours_kept(tmp_path: Path) -> None:
    big = WORDS * 2000  # 114,000 bytes
    path = tmp_path / "d.xml.bz2"
    path.write_bytes(bz2.compress(dump(page(1, WORDS * 30), page(2, big), page(3, WORDS * 30))))
    items = list(read_dump(path, max_page_bytes=100_000))
    assert [type(item).__name__ for item in items] == ["WikiPage", "Unreadable", "WikiPage"]
    reject = items[1]
    assert isinstance(reject, Unreadable) and reject.reason == "page_too_large"
    assert reject.source == "d.xml.bz2:page:2"
    assert reject.detail == "page 'Page 2': <text> of 114000 bytes > max_page_bytes 100000"
    # At exactly the cap the page is kept whole.
    kept = list(read_dump(path, max_page_bytes=114_000))
    assert isinstance(kept[1], WikiPage) and kept[1].text == big.decode()


def test_a_page_bomb_is_never_held(tmp_path: Path) -> None:
    # 14 MB of text in a ~60 KB file, cap 1 MB: Python never holds more than a few MB of it.
    compressor = zlib.compressobj(9, zlib.DEFLATED, 31)  # gzip: bz2 is slow on repeated text
    opening = page(2, b"")[: -len(b"</text></revision></page>\n")]
    parts = [compressor.compress(HEAD + page(1, WORDS * 30) + opening)]
    block = WORDS * 20_000
    parts += [compressor.compress(block) for _ in range(12)]
    parts += [compressor.compress(b"</text></revision></page>\n" + page(3, WORDS * 30) + b"</mediawiki>")]
    path = tmp_path / "bomb.xml.gz"
    path.write_bytes(b"".join(parts) + compressor.flush())
    tracemalloc.start()
    try:
        items = list(read_dump(path, max_page_bytes=1_000_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000
    assert [getattr(item, "reason", "kept") for item in items] == ["kept", "page_too_large", "kept"]
    assert f"of {12 * len(block)} bytes" in items[1].detail  # type: ignore[union-attr]


def test_text_over_the_cap_between_pages_is_reported_and_the_pages_kept(tmp_path: Path) -> None:
    path = tmp_path / "d.xml"
    path.write_bytes(dump(page(1, WORDS * 30), b" " * 5000, page(2, WORDS * 30)))
    items = list(read_dump(path, max_page_bytes=2000))
    assert [getattr(item, "reason", "kept") for item in items] == ["kept", "kept", "content_too_large"]
    assert items[2].detail.startswith("5001 bytes of text in <mediawiki> outside any page")  # type: ignore[union-attr]


def test_a_tag_over_the_cap_ends_the_file_as_token_too_large(tmp_path: Path) -> None:
    huge = page(2, b"x").replace(b"<page>", b"<page><title a='" + b"y" * 300_000 + b"'/>", 1)
    path = tmp_path / "d.xml"
    path.write_bytes(dump(page(1, WORDS * 30), huge, page(3, WORDS * 30)))
    items = list(read_dump(path, max_page_bytes=100_000))
    assert [getattr(item, "reason", "kept") for item in items] == ["kept", "token_too_large"]
    assert items[1].source == "d.xml:after_page:1" and "1 pages read before it are kept" in items[1].detail  # type: ignore[union-attr]


def test_a_page_that_raises_is_that_pages_reject(tmp_path: Path) -> None:
    path = tmp_path / "d.xml"
    path.write_bytes(dump(page(1, WORDS * 30), page(2, WORDS * 30, ns_text="zero"), page(3, WORDS * 30)))
    items = list(read_dump(path))
    assert [getattr(item, "reason", "kept") for item in items] == ["kept", "unreadable_page", "kept"]
    assert items[1].detail.startswith("ValueError: invalid literal for int()")  # type: ignore[union-attr]
    assert items[1].source == "d.xml:page_number:2"


def test_wiki_ingest_files_what_splitting_one_page_raises(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import almanac.wiki.ingest as wiki_ingest

    real = wiki_ingest.split_sections  # type: ignore[attr-defined]

    def fragile(text: str):  # type: ignore[no-untyped-def]
        if text.startswith("beta"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(text)

    monkeypatch.setattr(wiki_ingest, "split_sections", fragile)
    path = tmp_path / "d.xml"
    path.write_bytes(dump(page(1, WORDS * 30), page(2, b"beta " + WORDS * 30), page(3, WORDS * 30)))
    rows, ledger = ingest_dump(DumpTask(str(path), "d.xml", 200))
    assert [row["page_id"] for row in rows] == [1, 3]
    [reject] = ledger.rejects
    assert (reject.reason, reject.detail) == (
        "unreadable_page",
        "Page 2: RecursionError: maximum recursion depth exceeded",
    )


# -- WCEP ---------------------------------------------------------------------------------------------

DAY = b"== Armed conflicts and attacks ==\n* A thing happened. [https://a.example/x (Example)]\n"


def test_wcep_day_page_over_the_cap_in_a_dump_is_rejected_and_the_others_parsed(tmp_path: Path) -> None:
    title = "Portal:Current events/2025 May {}"
    data = dump(
        page(1, DAY, title.format(1), 100),
        page(2, DAY * 2000, title.format(2), 100),
        page(3, DAY, title.format(3), 100),
    )
    (tmp_path / "d.xml").write_bytes(data)
    rows, ledger = ingest_wcep(WcepIngestConfig(dump_dir=str(tmp_path), max_page_bytes=50_000))
    assert sorted(str(row["date"]) for row in rows) == ["2025-05-01", "2025-05-03"]
    [reject] = ledger.rejects
    assert reject.reason == "page_too_large" and f"of {len(DAY) * 2000} bytes" in reject.detail


def test_wcep_day_file_over_the_cap_is_rejected_unread(tmp_path: Path) -> None:
    (tmp_path / "2025_May_1.wikitext").write_bytes(DAY)
    (tmp_path / "Portal:Current events__2025 May 2.wikitext").write_bytes(DAY * 100)
    (tmp_path / "Portal:Current events__2025 May 1.wikitext").write_bytes(DAY)
    result = parse_day_directory(tmp_path, max_page_bytes=1000)
    assert result.pages_parsed == 1
    [reject] = [r for r in result.page_rejects if r.reason == "page_too_large"]
    assert reject.detail == f"{len(DAY) * 100} bytes > max_page_bytes 1000"


def test_wcep_day_page_that_raises_is_that_pages_reject(monkeypatch: pytest.MonkeyPatch) -> None:
    import almanac.wcep.days as days

    def broken(title: str, wikitext: str):  # type: ignore[no-untyped-def]
        raise OverflowError("date value out of range")

    monkeypatch.setattr(days, "parse_day", broken)
    result = days.parse_day_pages([("Portal:Current events/2025 May 1", "x")], "pages")
    assert [(r.reason, r.detail) for r in result.page_rejects] == [
        ("unreadable_page", "OverflowError: date value out of range")
    ]


def _mds_line(day: str) -> bytes:
    return json.dumps({"date": day, "summary": f"Something on {day}."}).encode() + b"\n"


def test_wcep_mds_line_over_the_cap_is_rejected_with_its_size_unread(tmp_path: Path) -> None:
    long_line = b'{"date": "2025-05-02", "summary": "' + b"x" * 20_000_000 + b'"}\n'
    path = tmp_path / "m.jsonl.gz"
    path.write_bytes(gzip.compress(_mds_line("2025-05-01") + long_line + _mds_line("2025-05-03")))
    tracemalloc.start()
    try:
        items = list(read_wcep_mds(path, "m", max_line_bytes=100_000))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8_000_000  # the 20 MB line is never held (the reader holds a few 1 MiB blocks)
    assert [type(item).__name__ for item in items] == ["MdsEvent", "Unreadable", "MdsEvent"]
    assert (items[1].reason, items[1].source) == ("line_too_long", "m:2")  # type: ignore[union-attr]
    assert items[1].detail == f"line of {len(long_line) - 1} bytes > max_line_bytes 100000"  # type: ignore[union-attr]


def test_wcep_mds_lines_that_break_the_json_parser_are_rejects(tmp_path: Path) -> None:
    deep = b"[" * 100_000 + b"]" * 100_000 + b"\n"
    huge_int = b'{"date": "2025-05-02", "summary": "s", "id": ' + b"9" * 100_000 + b"}\n"
    path = tmp_path / "m.jsonl"
    path.write_bytes(_mds_line("2025-05-01") + deep + huge_int + _mds_line("2025-05-03"))
    items = list(read_wcep_mds(path, "m"))
    assert [getattr(item, "reason", "kept") for item in items] == [
        "kept",
        "record_error",  # the JSON reader shared with news-please: what parsing raises is the line's reject
        "record_error",
        "kept",
    ]
    assert items[1].detail.startswith("RecursionError")  # type: ignore[union-attr]
    assert items[2].detail.startswith("ValueError: Exceeds the limit")  # type: ignore[union-attr]
    assert all(isinstance(item, MdsEvent) for item in (items[0], items[3]))
