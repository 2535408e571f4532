"""CC-News listing, month download with manifest, and the CLI, against a loopback HTTP server."""

from __future__ import annotations

import gzip
import io
import subprocess
import sys
from pathlib import Path

import pytest
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from almanac.ccnews.download import check_gzip_complete, download_month, list_warc_paths, warc_paths_url
from almanac.core.download import (
    DownloadError,
)
from almanac.core.io import read_json
from tests.support.downloads import FAST, SleepRecorder, put, server, sha, sleep
from tests.support.http_fixture_server import FixtureServer

__all__ = ["server", "sleep"]  # pytest fixtures used by name


# -- CC-News ---------------------------------------------------------------------------------------

MONTH_DIR = "crawl-data/CC-NEWS/2025/05"
NAMES = ("CC-NEWS-20250501000000-00000.warc.gz", "CC-NEWS-20250502000000-00001.warc.gz")


def tiny_warc(seed: int) -> bytes:
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True)
    for number in range(3):
        body = f"<html><body><p>Story {seed}-{number}.</p></body></html>".encode()
        headers = StatusAndHeaders(
            "200 OK", [("Content-Type", "text/html; charset=utf-8")], protocol="HTTP/1.1"
        )
        url = f"https://news.example/{seed}/{number}"
        writer.write_record(
            writer.create_warc_record(url, "response", payload=io.BytesIO(body), http_headers=headers)
        )
    return out.getvalue()


def publish_month(server: FixtureServer, listing_lines: list[str] | None = None) -> dict[str, bytes]:
    files = {name: tiny_warc(seed) for seed, name in enumerate(NAMES)}
    for name, data in files.items():
        put(server, f"/{MONTH_DIR}/{name}", data)
    # Listed out of name order, to show the manifest is sorted by file rather than by listing.
    lines = listing_lines or [f"{MONTH_DIR}/{NAMES[1]}", f"{MONTH_DIR}/{NAMES[0]}"]
    put(server, f"/{MONTH_DIR}/warc.paths.gz", gzip.compress(("\n".join(lines) + "\n").encode()))
    return files


def warc_gets(server: FixtureServer) -> dict[str, int]:
    return {name: server.count(f"/{MONTH_DIR}/{name}") for name in NAMES}


def test_warc_paths_url_layout() -> None:
    assert (
        warc_paths_url("2025-05") == "https://data.commoncrawl.org/crawl-data/CC-NEWS/2025/05/warc.paths.gz"
    )


def test_download_month_manifest_and_rerun(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    files = publish_month(server)
    out = tmp_path / "ccnews"
    results = download_month("2025-05", out, base_url=server.base_url, config=FAST, sleep=sleep)
    assert [r.path.name for r in results] == [NAMES[1], NAMES[0]]  # listing order
    for name, data in files.items():
        assert (out / "2025-05" / name).read_bytes() == data
    manifest = read_json(out / "2025-05" / "MANIFEST.json")
    assert manifest == {
        "month": "2025-05",
        "files": [
            {
                "file": name,
                "size": len(files[name]),
                "sha256": sha(files[name]),
                "url": server.url(f"{MONTH_DIR}/{name}"),
            }
            for name in NAMES
        ],
    }
    assert warc_gets(server) == {NAMES[0]: 1, NAMES[1]: 1}

    server.clear_log()
    rerun = download_month("2025-05", out, base_url=server.base_url, config=FAST, sleep=sleep)
    assert warc_gets(server) == {NAMES[0]: 0, NAMES[1]: 0}
    assert [r.attempts for r in rerun] == [0, 0]
    assert server.count(f"/{MONTH_DIR}/warc.paths.gz") == 1

    damaged = out / "2025-05" / NAMES[0]
    original = files[NAMES[0]]
    damaged.write_bytes(original[:100] + bytes([original[100] ^ 0xFF]) + original[101:])  # same size
    server.clear_log()
    download_month("2025-05", out, base_url=server.base_url, config=FAST, sleep=sleep)
    assert warc_gets(server) == {NAMES[0]: 1, NAMES[1]: 0}
    assert damaged.read_bytes() == files[NAMES[0]]
    assert read_json(out / "2025-05" / "MANIFEST.json") == manifest
    assert sleep.calls == []


def test_truncated_warc_is_refetched(server: FixtureServer, tmp_path: Path, sleep: SleepRecorder) -> None:
    files = publish_month(server)
    truncated = files[NAMES[0]][:-25]
    with pytest.raises(ValueError, match="incomplete or corrupt gzip"):
        (tmp_path / "t.warc.gz").write_bytes(truncated)
        check_gzip_complete(tmp_path / "t.warc.gz")
    server.serve_body(f"/{MONTH_DIR}/{NAMES[0]}", truncated)  # complete HTTP response, broken gzip stream
    out = tmp_path / "ccnews"
    download_month("2025-05", out, base_url=server.base_url, config=FAST, sleep=sleep)
    assert warc_gets(server) == {NAMES[0]: 2, NAMES[1]: 1}
    assert (out / "2025-05" / NAMES[0]).read_bytes() == files[NAMES[0]]
    assert len(sleep.calls) == 1


def test_always_truncated_warc_fails_and_is_not_recorded(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    files = publish_month(server)
    server.serve_body(f"/{MONTH_DIR}/{NAMES[0]}", files[NAMES[0]][:-25], times=100)
    out = tmp_path / "ccnews"
    with pytest.raises(DownloadError, match="gzip"):
        download_month("2025-05", out, base_url=server.base_url, config=FAST, sleep=sleep)
    assert not (out / "2025-05" / NAMES[0]).exists()
    assert not (out / "2025-05" / (NAMES[0] + ".part")).exists()
    manifest = read_json(out / "2025-05" / "MANIFEST.json")  # the file listed first did finish
    assert [entry["file"] for entry in manifest["files"]] == [NAMES[1]]


def test_max_files_takes_the_first_listed(server: FixtureServer, tmp_path: Path) -> None:
    publish_month(server)
    results = download_month("2025-05", tmp_path, base_url=server.base_url, config=FAST, max_files=1)
    assert [r.path.name for r in results] == [NAMES[1]]
    assert warc_gets(server) == {NAMES[0]: 0, NAMES[1]: 1}


@pytest.mark.parametrize(
    "bad_line",
    [
        "crawl-data/CC-NEWS/2025/06/CC-NEWS-20250601000000-00002.warc.gz",  # another month
        "crawl-data/CC-MAIN-2025-18/segments/x.warc.gz",
        "",
        f"{MONTH_DIR}/{NAMES[0]}",  # repeated
    ],
)
def test_bad_listing_line_is_reported_with_its_number(server: FixtureServer, bad_line: str) -> None:
    publish_month(server, [f"{MONTH_DIR}/{NAMES[0]}", bad_line, f"{MONTH_DIR}/{NAMES[1]}"])
    with pytest.raises(ValueError, match="line 2"):
        list_warc_paths("2025-05", server.base_url, FAST)


def test_listing_that_is_not_gzip_is_rejected(server: FixtureServer) -> None:
    put(server, f"/{MONTH_DIR}/warc.paths.gz", f"{MONTH_DIR}/{NAMES[0]}\n".encode())
    with pytest.raises(ValueError, match="not a gzipped"):
        list_warc_paths("2025-05", server.base_url, FAST)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "almanac.ccnews.download", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_cli_downloads_and_reports_each_file(server: FixtureServer, tmp_path: Path) -> None:
    files = publish_month(server)
    out = tmp_path / "raw"
    done = run_cli("--month", "2025-05", "--out", str(out), "--base-url", server.base_url)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 3 and lines[-1].startswith("2025-05: 2 files (2 fetched)")
    assert NAMES[1] in lines[0] and NAMES[0] in lines[1]
    for name, data in files.items():
        assert (out / "2025-05" / name).read_bytes() == data


def test_cli_failure_exits_1_with_message(server: FixtureServer, tmp_path: Path) -> None:
    done = run_cli("--month", "2025-05", "--out", str(tmp_path / "raw"), "--base-url", server.base_url)
    assert done.returncode == 1
    assert "HTTP 404" in done.stderr and "warc.paths.gz" in done.stderr
