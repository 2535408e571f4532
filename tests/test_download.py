"""Generic downloader behaviour against a loopback HTTP server that injects faults on request.

Nothing here touches the network; backoff sleeps are recorded instead of slept.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
import requests

from almanac.core.download import (
    DownloadConfig,
    DownloadError,
    download_file,
    fetch_bytes,
    parse_retry_after,
)
from tests.support.downloads import FAST, SleepRecorder, blob, put, server, sha, sleep
from tests.support.http_fixture_server import FixtureServer

__all__ = ["server", "sleep"]  # pytest fixtures used by name


# -- download_file -----------------------------------------------------------------------------------


def test_download_writes_verified_file_and_sends_user_agent(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    data = blob(200_000)
    url = put(server, "/files/a.bin", data)
    dest = tmp_path / "out" / "a.bin"
    result = download_file(url, dest, FAST, expected_sha256=sha(data), expected_size=len(data), sleep=sleep)
    assert dest.read_bytes() == data
    assert (result.size, result.sha256, result.attempts, result.resumed) == (len(data), sha(data), 1, False)
    assert not dest.with_name("a.bin.part").exists()
    [request] = server.requests("/files/a.bin")
    assert request.headers["user-agent"] == FAST.user_agent
    assert request.range is None
    assert sleep.calls == []


def test_resume_after_mid_body_connection_drop(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    data = blob(300_000)
    url = put(server, "/a.bin", data)
    server.cut_after("/a.bin", 100_000)
    dest = tmp_path / "a.bin"
    result = download_file(url, dest, FAST, expected_sha256=sha(data), sleep=sleep)
    first, second = server.requests("/a.bin")
    assert first.range is None and first.status == 200
    assert second.range is not None and second.status == 206
    offset = int(second.range.removeprefix("bytes=").removesuffix("-"))
    assert 0 < offset <= 100_000  # kept what arrived before the drop instead of starting over
    assert dest.read_bytes() == data
    assert result.sha256 == sha(data) and result.resumed and result.attempts == 2
    assert len(sleep.calls) == 1 and 0 <= sleep.calls[0] <= FAST.backoff_initial_s


def test_rerun_resumes_from_partial_file_left_by_earlier_run(server: FixtureServer, tmp_path: Path) -> None:
    data = blob(50_000)
    url = put(server, "/a.bin", data)
    dest = tmp_path / "a.bin"
    dest.with_name("a.bin.part").write_bytes(data[:12_345])
    result = download_file(url, dest, FAST, expected_sha256=sha(data))
    [request] = server.requests("/a.bin")
    assert request.range == "bytes=12345-" and request.status == 206
    assert dest.read_bytes() == data and result.resumed


def test_server_ignoring_range_restarts_from_zero(server: FixtureServer, tmp_path: Path) -> None:
    data = blob(40_000)
    url = put(server, "/a.bin", data)
    server.ignore_range("/a.bin")
    dest = tmp_path / "a.bin"
    dest.with_name("a.bin.part").write_bytes(b"x" * 1_000)  # wrong bytes: appending would corrupt the file
    result = download_file(url, dest, FAST, expected_size=len(data))
    [request] = server.requests("/a.bin")
    assert request.range == "bytes=1000-" and request.status == 200
    assert dest.read_bytes() == data
    assert not result.resumed


def test_416_on_complete_part_finishes_without_refetching(server: FixtureServer, tmp_path: Path) -> None:
    data = blob(10_000)
    url = put(server, "/a.bin", data)
    dest = tmp_path / "a.bin"
    dest.with_name("a.bin.part").write_bytes(data)
    result = download_file(url, dest, FAST, expected_sha256=sha(data))
    assert [r.status for r in server.requests("/a.bin")] == [416]
    assert dest.read_bytes() == data and result.attempts == 1


def test_416_on_oversized_part_restarts(server: FixtureServer, tmp_path: Path, sleep: SleepRecorder) -> None:
    data = blob(10_000)
    url = put(server, "/a.bin", data)
    dest = tmp_path / "a.bin"
    dest.with_name("a.bin.part").write_bytes(data + b"stale tail")
    download_file(url, dest, FAST, sleep=sleep)
    assert [r.status for r in server.requests("/a.bin")] == [416, 200]
    assert dest.read_bytes() == data


def test_503_then_success_honours_retry_after_seconds(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    data = blob(5_000)
    url = put(server, "/a.bin", data)
    server.fail("/a.bin", status=503, times=2, retry_after="3")
    result = download_file(url, tmp_path / "a.bin", FAST, sleep=sleep)
    assert sleep.calls == [3.0, 3.0]
    assert result.attempts == 3 and (tmp_path / "a.bin").read_bytes() == data


def test_429_with_http_date_retry_after_is_capped(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    url = put(server, "/a.bin", b"payload")
    far = format_datetime(datetime.now(UTC) + timedelta(hours=2), usegmt=True)
    server.fail("/a.bin", status=429, retry_after=far)
    download_file(url, tmp_path / "a.bin", FAST, sleep=sleep)
    assert sleep.calls == [FAST.backoff_max_s]
    assert server.count("/a.bin") == 2


def test_parse_retry_after_forms() -> None:
    now = datetime(2025, 5, 1, 12, 0, 0, tzinfo=UTC)
    assert parse_retry_after("120") == 120.0
    assert parse_retry_after("Thu, 01 May 2025 12:00:30 GMT", now=now) == 30.0
    assert parse_retry_after("Thu, 01 May 2025 11:00:00 GMT", now=now) == 0.0  # already past
    assert parse_retry_after("soon") is None
    assert parse_retry_after(None) is None


def test_retry_budget_exhausted_raises_with_jittered_backoff(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder
) -> None:
    url = put(server, "/a.bin", b"never served")
    server.fail("/a.bin", status=502, times=100)
    with pytest.raises(DownloadError) as caught:
        download_file(url, tmp_path / "a.bin", FAST, sleep=sleep)
    assert (
        caught.value.url == url and "HTTP 502" in caught.value.reason and "5 attempts" in caught.value.reason
    )
    assert server.count("/a.bin") == FAST.retries + 1
    caps = [1.0, 2.0, 4.0, 8.0]  # backoff_initial_s * 2**n, capped at backoff_max_s = 8
    assert len(sleep.calls) == FAST.retries
    assert all(0 <= slept <= cap for slept, cap in zip(sleep.calls, caps, strict=True))
    assert not (tmp_path / "a.bin").exists()


@pytest.mark.parametrize("path, status", [("/missing.bin", 404), ("/forbidden.bin", 403)])
def test_client_errors_fail_fast(
    server: FixtureServer, tmp_path: Path, sleep: SleepRecorder, path: str, status: int
) -> None:
    if status == 403:
        put(server, path, b"secret")
        server.fail(path, status=403)
    with pytest.raises(DownloadError, match=f"HTTP {status}"):
        download_file(server.url(path), tmp_path / "x.bin", FAST, sleep=sleep)
    assert server.count(path) == 1 and sleep.calls == []


def test_checksum_mismatch_leaves_nothing_behind(server: FixtureServer, tmp_path: Path) -> None:
    url = put(server, "/a.bin", blob(20_000))
    dest = tmp_path / "a.bin"
    with pytest.raises(DownloadError, match="sha256"):
        download_file(url, dest, FAST, expected_sha256=sha(b"something else"))
    assert not dest.exists() and not dest.with_name("a.bin.part").exists()
    with pytest.raises(DownloadError, match="size 20000 != expected 19999"):
        download_file(url, dest, FAST, expected_size=19_999)
    assert not dest.exists() and not dest.with_name("a.bin.part").exists()


def test_other_digest_algorithms_are_checked(server: FixtureServer, tmp_path: Path) -> None:
    data = blob(1_000)
    url = put(server, "/a.bin", data)
    download_file(url, tmp_path / "a.bin", FAST, expected_digests={"md5": hashlib.md5(data).hexdigest()})
    with pytest.raises(DownloadError, match="md5"):
        download_file(url, tmp_path / "b.bin", FAST, expected_digests={"md5": "0" * 32})


def test_existing_matching_dest_is_skipped_and_a_damaged_one_refetched(
    server: FixtureServer, tmp_path: Path
) -> None:
    data = blob(8_000)
    url = put(server, "/a.bin", data)
    dest = tmp_path / "a.bin"
    download_file(url, dest, FAST, expected_sha256=sha(data))
    skipped = download_file(url, dest, FAST, expected_sha256=sha(data))
    assert skipped.attempts == 0 and skipped.sha256 == sha(data) and server.count("/a.bin") == 1
    dest.write_bytes(b"damaged" + data[7:])
    again = download_file(url, dest, FAST, expected_sha256=sha(data))
    assert again.attempts == 1 and dest.read_bytes() == data and server.count("/a.bin") == 2


def test_read_timeout_is_retried(server: FixtureServer, tmp_path: Path, sleep: SleepRecorder) -> None:
    data = blob(4_000)
    url = put(server, "/a.bin", data)
    server.stall("/a.bin", 0.6)
    config = DownloadConfig(retries=2, timeout_s=0.2)
    result = download_file(url, tmp_path / "a.bin", config, sleep=sleep)
    assert result.attempts == 2 and (tmp_path / "a.bin").read_bytes() == data


def test_fetch_bytes_retries_truncated_body_and_reuses_session(
    server: FixtureServer, sleep: SleepRecorder
) -> None:
    data = blob(70_000)
    url = put(server, "/index.txt", data)
    server.cut_after("/index.txt", 30_000)
    with requests.Session() as session:
        assert fetch_bytes(url, FAST, session, sleep=sleep) == data
        with pytest.raises(DownloadError, match="HTTP 404"):
            fetch_bytes(server.url("/nope"), FAST, session, sleep=sleep)
    assert server.count("/index.txt") == 2 and len(sleep.calls) == 1
