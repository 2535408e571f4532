"""Page archives: WARC captures of event URLs, read once, looked up by the corpus's URL key."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from almanac.gdelt.page_archive import ArchivedPage, PageArchive, PageProblem
from tests.support.warc_factory import article_html, article_text, raw_response_member

REALDATA_WARC = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "warc"
HTML = "text/html; charset=utf-8"


def page(seed: int, title: str = "Water deal signed") -> bytes:
    return article_html(title, article_text(seed), "2025-05-02T08:00:00+00:00")


def warc(path: Path, captures: list[tuple[str, bytes, str, str]]) -> Path:
    """A per-record gzipped WARC/1.0 of (url, body, status line, Content-Type) response records."""
    buffer = io.BytesIO()
    writer = WARCWriter(buffer, gzip=True, warc_version="1.0")
    for url, body, status, content_type in captures:
        headers = StatusAndHeaders(status, [("Content-Type", content_type)], protocol="HTTP/1.1")
        record = writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=headers)
        writer.write_record(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buffer.getvalue())
    return path


def ok(url: str, body: bytes) -> tuple[str, bytes, str, str]:
    return url, body, "200 OK", HTML


def test_first_capture_wins_across_records_and_files(tmp_path: Path) -> None:
    url = "https://herald.example/water-deal"
    warc(tmp_path / "b.warc.gz", [ok(url, page(3, "Third capture"))])  # written first, read last
    warc(tmp_path / "a.warc.gz", [ok(url, page(1, "First capture")), ok(url, page(2, "Second capture"))])
    archive = PageArchive.open([tmp_path], [url])
    found = archive.find(url)
    assert isinstance(found, ArchivedPage) and found.title == "First capture"
    assert found.source.startswith("a.warc.gz:0")  # the first record of the first file
    assert (archive.files, archive.duplicate_records) == (2, 2)


def test_a_url_is_found_by_its_match_key(tmp_path: Path) -> None:
    warc(tmp_path / "a.warc.gz", [ok("http://www.herald.example/water-deal?utm_source=rss", page(1))])
    archive = PageArchive.open([tmp_path], ["https://herald.example/water-deal"])
    assert isinstance(archive.find("https://herald.example/water-deal"), ArchivedPage)
    assert archive.find("https://herald.example/other") is None


def test_only_wanted_urls_are_kept(tmp_path: Path) -> None:
    warc(tmp_path / "a.warc.gz", [ok(f"https://herald.example/{n}", page(n)) for n in range(4)])
    archive = PageArchive.open([tmp_path], ["https://herald.example/2"])
    assert list(archive.records) == ["https://herald.example/2"]


def test_unusable_captures_keep_their_reason(tmp_path: Path) -> None:
    urls = [f"https://herald.example/{name}" for name in ("gone", "report.pdf", "blank", "latin", "binary")]
    blank = b"<html><body><nav>Home</nav></body></html>"
    # cp1252 bytes (curly apostrophe 0x92, e-acute 0xe9) under a UTF-8 label: not valid UTF-8
    latin = page(4, "Caf\u00e9 owners\u2019 views").decode().encode("cp1252")
    assert b"\x92" in latin
    binary = page(5).replace(b"Water deal", b"Water \x81 deal")  # 0x81: invalid UTF-8 and undefined in cp1252
    warc(
        tmp_path / "a.warc.gz",
        [
            (urls[0], b"<html>Not found</html>", "404 Not Found", "text/html"),
            (urls[1], b"%PDF-1.4\n%%EOF\n", "200 OK", "application/pdf"),
            ok(urls[2], blank),
            ok(urls[3], latin),
            ok(urls[4], binary),
        ],
    )
    archive = PageArchive.open([tmp_path], urls)
    found = [archive.find(url) for url in urls]
    reasons = [item.reason if isinstance(item, PageProblem) else "page" for item in found]
    assert reasons == ["http_status", "not_html", "no_extractable_text", "page", "archive_unreadable"]
    assert isinstance(found[0], PageProblem) and found[0].detail.endswith("HTTP status 404")
    assert isinstance(found[1], PageProblem) and "application/pdf" in found[1].detail
    latin_page = found[3]
    assert isinstance(latin_page, ArchivedPage) and latin_page.relabelled
    assert latin_page.title == "Caf\u00e9 owners\u2019 views"  # decoded as cp1252, not garbled
    assert archive.relabelled_pages == 1
    assert isinstance(found[4], PageProblem) and "no charset detected" in found[4].detail


def test_a_record_cut_short_is_unreadable_and_the_records_before_it_are_kept(tmp_path: Path) -> None:
    first, last = "https://herald.example/first", "https://herald.example/last"
    whole = warc(tmp_path / "whole.warc.gz", [ok(first, page(1)), ok(last, page(2))]).read_bytes()
    last_member = warc(tmp_path / "spare" / "x.warc.gz", [ok(last, page(2))]).read_bytes()
    # Cut the last gzip member in half: its WARC header survives, its HTML payload does not.
    (tmp_path / "whole.warc.gz").unlink()
    (tmp_path / "cut.warc.gz").write_bytes(whole[: len(whole) - len(last_member) // 2])
    archive = PageArchive.open([tmp_path], [first, last])
    assert isinstance(archive.find(first), ArchivedPage)
    cut = archive.find(last)
    assert isinstance(cut, PageProblem) and cut.reason == "archive_unreadable"
    assert "before its Content-Length" in cut.detail


def test_damage_that_hides_the_url_stops_the_file_and_is_counted(tmp_path: Path) -> None:
    first = "https://herald.example/first"
    good = warc(tmp_path / "a.warc.gz", [ok(first, page(1))]).read_bytes()
    garbled = raw_response_member("https://herald.example/second", b"HTTP/1.1 200 OK\r\n\r\n<html></html>")
    # A gzip member cut inside its WARC header, then a member that is not gzip at all.
    (tmp_path / "a.warc.gz").write_bytes(good + garbled[:12] + b"not a gzip member")
    archive = PageArchive.open([tmp_path], [first, "https://herald.example/second"])
    assert isinstance(archive.find(first), ArchivedPage)
    assert archive.find("https://herald.example/second") is None
    assert sum(archive.file_problems.values()) == 1


def test_a_missing_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="page archive folder"):
        PageArchive.open([tmp_path / "typo"], ["https://herald.example/a"])


def test_an_empty_folder_is_an_empty_archive(tmp_path: Path) -> None:
    archive = PageArchive.open([tmp_path], ["https://herald.example/a"])
    assert (archive.files, archive.records) == (0, {})


@pytest.mark.skipif(not REALDATA_WARC.is_dir(), reason="../shared/realdata/warc is not present")
def test_real_warc_files_are_read_without_crashing() -> None:
    paths = sorted(REALDATA_WARC.glob("*.warc.gz"))
    urls: set[str] = set()
    for path in paths:
        with open(path, "rb") as stream:
            for record in ArchiveIterator(stream):
                if record.rec_type == "response":
                    urls.add(record.rec_headers.get_header("WARC-Target-URI"))
    archive = PageArchive.open([REALDATA_WARC], urls)
    assert archive.files == len(paths) >= 1
    assert archive.file_problems == {}
    assert urls and len(archive.records) >= 1
    # every response record ends up as a page or a problem with a reason, none silently lost
    assert all(archive.find(url) is not None for url in urls)
