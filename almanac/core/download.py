"""HTTP downloads of raw sources (CC-News WARCs, Wikipedia dumps, GDELT exports) that survive flaky servers.

Bytes stream into ``<dest>.part``; an interrupted transfer resumes with a ``Range`` request; transient
failures (connection drops, timeouts, short bodies, 429, 5xx) are retried with capped exponential backoff
and full jitter; the file is verified before it is renamed onto ``dest``. So ``dest`` is either absent or
complete and verified, which is what DVC and later stages rely on.
"""

from __future__ import annotations

import email.utils
import hashlib
import logging
import os
import random
import re
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import requests
import urllib3

log = logging.getLogger(__name__)

T = TypeVar("T")
Sleep = Callable[[float], None]
# Checks a finished ``.part`` file; a ValueError (e.g. gzip stream ends early) deletes it and retries.
Verify = Callable[[Path], None]

_CONTENT_RANGE = re.compile(r"^bytes\s+(?:(\d+)-(\d+)|\*)/(?:(\d+)|\*)$")


class DownloadError(Exception):
    """A download that cannot succeed, or did not within the retry budget."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"download of {url} failed: {reason}")
        self.url = url
        self.reason = reason


class _Retryable(Exception):
    """A failure that another attempt may cure."""

    def __init__(self, reason: str, retry_after_s: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class DownloadConfig:
    retries: int = 6  # attempts after the first one
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0  # also caps a server's Retry-After
    timeout_s: float = 60.0  # connect timeout and longest silence while reading
    chunk_bytes: int = 1 << 20
    user_agent: str = "almanac/0.1 (research dataset builder)"
    # A listing read into memory (fetch_bytes: warc.paths.gz; GDELT 2.0 masterfilelist, ~1.1M lines, ~120 MB);
    # a longer body is refused, so a hostile or broken server cannot take the memory.
    max_fetch_bytes: int = 300_000_000

    def __post_init__(self) -> None:
        if min(self.retries, self.backoff_initial_s, self.backoff_max_s) < 0 or self.timeout_s <= 0:
            raise ValueError(f"download: retries/backoff must be >= 0 and timeout_s > 0, got {self}")
        if self.chunk_bytes <= 0 or self.max_fetch_bytes <= 0:
            raise ValueError(f"download: chunk_bytes and max_fetch_bytes must be > 0, got {self}")


@dataclass(frozen=True)
class DownloadResult:
    url: str
    path: Path
    size: int
    sha256: str
    resumed: bool  # the final bytes were assembled from a resumed (206) transfer
    attempts: int  # HTTP attempts made; 0 when dest was already complete


def download_file(
    url: str,
    dest: Path,
    config: DownloadConfig,
    *,
    expected_sha256: str | None = None,
    expected_size: int | None = None,
    expected_digests: Mapping[str, str] | None = None,
    verify: Verify | None = None,
    session: requests.Session | None = None,
    sleep: Sleep = time.sleep,
) -> DownloadResult:
    """Fetch ``url`` to ``dest``; skipped when ``dest`` matches the expectations (with none, always fetched).

    ``expected_digests``: other hashlib algorithms' hex digests, e.g. ``{"md5": ...}`` for GDELT.
    """
    expected = {name.lower(): value.lower() for name, value in (expected_digests or {}).items()}
    if expected_sha256 is not None:
        expected["sha256"] = expected_sha256.lower()
    for name in expected:
        hashlib.new(name)  # an unknown algorithm fails here, before any transfer
    dest = Path(dest)
    if dest.exists() and (expected or expected_size is not None):
        problem, sha256 = _check_file(dest, expected_size, expected)
        if problem is None:
            return DownloadResult(url, dest, dest.stat().st_size, sha256, False, 0)
        log.info("%s exists but %s; downloading again", dest, problem)
        dest.unlink()  # never leave bytes known to be wrong where a later stage would read them

    part = dest.with_suffix(dest.suffix + ".part")
    part.parent.mkdir(parents=True, exist_ok=True)
    if expected_size is not None and part.exists() and part.stat().st_size > expected_size:
        part.unlink()

    def attempt(client: requests.Session) -> bool:
        resumed = _fetch_to_part(url, part, client, config)
        if verify is not None:
            try:
                verify(part)
            except ValueError as error:
                part.unlink(missing_ok=True)
                raise _Retryable(f"downloaded bytes are unusable: {error}") from error
        return resumed

    with nullcontext(session) if session is not None else requests.Session() as client:
        resumed, attempts = _with_retries(url, config, sleep, lambda: attempt(client))
    problem, sha256 = _check_file(part, expected_size, expected)
    if problem is not None:
        part.unlink()
        raise DownloadError(url, problem)
    os.replace(part, dest)
    return DownloadResult(url, dest, dest.stat().st_size, sha256, resumed, attempts)


def fetch_bytes(
    url: str, config: DownloadConfig, session: requests.Session | None = None, *, sleep: Sleep = time.sleep
) -> bytes:
    """A small file (an index or listing) in memory, under the same retry policy as :func:`download_file`.

    Streamed and capped: a body (declared or read) over ``config.max_fetch_bytes`` fails the download.
    """

    def attempt(client: requests.Session) -> bytes:
        with _get(client, url, config, {}) as response:
            _raise_for_status(url, response, ok=(200,))
            declared = _content_length(response)
            too_large = f"body over max_fetch_bytes {config.max_fetch_bytes}"
            if declared is not None and declared > config.max_fetch_bytes:
                raise DownloadError(url, f"{too_large} (Content-Length {declared})")
            body = bytearray()
            for chunk in _stream_body(response, config.chunk_bytes):
                body += chunk
                if len(body) > config.max_fetch_bytes:
                    raise DownloadError(url, too_large)
        if declared is not None and len(body) != declared:
            raise _Retryable(f"body truncated: got {len(body)} of {declared} bytes")
        return bytes(body)

    with nullcontext(session) if session is not None else requests.Session() as client:
        body, _ = _with_retries(url, config, sleep, lambda: attempt(client))
    return body


def file_digests(path: Path, algorithms: tuple[str, ...] = ("sha256",)) -> dict[str, str]:
    """Hex digests of a file, read once whatever the number of algorithms."""
    hashes = {name: hashlib.new(name) for name in {"sha256", *algorithms}}
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            for digest in hashes.values():
                digest.update(chunk)
    return {name: digest.hexdigest() for name, digest in hashes.items()}


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Seconds to wait from a Retry-After header (delay-seconds or HTTP-date); None if absent/invalid."""
    value = (value or "").strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max(0.0, (moment - (now or datetime.now(UTC))).total_seconds())


def backoff_delay(config: DownloadConfig, failures: int, retry_after_s: float | None) -> float:
    """Wait before the next attempt: the server's Retry-After if given, else full jitter; both capped."""
    if retry_after_s is not None:
        return min(retry_after_s, config.backoff_max_s)
    ceiling = min(config.backoff_max_s, config.backoff_initial_s * 2 ** (failures - 1))
    return random.uniform(0.0, ceiling)


def _with_retries(url: str, config: DownloadConfig, sleep: Sleep, attempt: Callable[[], T]) -> tuple[T, int]:
    attempts = config.retries + 1
    for number in range(1, attempts + 1):
        try:
            return attempt(), number
        except _Retryable as failure:
            if number == attempts:
                raise DownloadError(url, f"gave up after {number} attempts; last: {failure.reason}") from None
            delay = backoff_delay(config, number, failure.retry_after_s)
            log.warning("%s: attempt %d failed (%s); retrying in %.1fs", url, number, failure.reason, delay)
            sleep(delay)
    raise AssertionError("unreachable")


def _fetch_to_part(url: str, part: Path, session: requests.Session, config: DownloadConfig) -> bool:
    """One attempt to complete ``part``; returns whether it continued bytes from an earlier attempt."""
    offset = part.stat().st_size if part.exists() else 0
    headers = {"Range": f"bytes={offset}-"} if offset else {}
    with _get(session, url, config, headers) as response:
        if response.status_code == 416 and offset:
            server_size = _content_range(response)[2]
            if server_size == offset:  # an earlier run got every byte but stopped before the rename
                return True
            part.unlink()
            raise _Retryable(f"HTTP 416 for a {offset}-byte part (server size {server_size}); restarting")
        _raise_for_status(url, response, ok=(200, 206) if offset else (200,))
        if response.status_code == 206:
            start, stop, total = _content_range(response)
            if start != offset or stop is None:
                part.unlink()
                raise _Retryable(f"asked to resume at byte {offset}, server sent from {start}; restarting")
        else:
            if offset:
                log.info("%s: server ignored the Range request; restarting from byte 0", url)
            offset = 0
            stop = total = _content_length(response)
        declared = _content_length(response)
        written = 0
        with open(part, "ab" if offset else "wb") as out:
            for chunk in _stream_body(response, config.chunk_bytes):
                out.write(chunk)
                written += len(chunk)
            out.flush()
            os.fsync(out.fileno())
    if declared is not None and written < declared:
        raise _Retryable(f"body truncated: got {written} of {declared} bytes")  # the part is kept: resume
    if stop is not None and offset + written != stop:
        part.unlink()
        raise _Retryable(f"body ended at byte {offset + written}, server announced {stop}; restarting")
    if total is not None and offset + written < total:
        raise _Retryable(f"server sent bytes up to {offset + written} of {total}; resuming")
    return offset > 0


@contextmanager
def _get(
    session: requests.Session, url: str, config: DownloadConfig, headers: Mapping[str, str]
) -> Iterator[requests.Response]:
    # identity: the bytes on disk must be the bytes the server stores, not a re-encoding of them.
    all_headers = {"User-Agent": config.user_agent, "Accept-Encoding": "identity", **headers}
    try:
        response = session.get(url, headers=all_headers, stream=True, timeout=config.timeout_s)
    except requests.exceptions.SSLError as error:
        raise DownloadError(url, f"TLS error: {error}") from error
    except (requests.ConnectionError, requests.Timeout) as error:
        raise _Retryable(f"{type(error).__name__}: {error}") from error
    except requests.RequestException as error:
        raise DownloadError(url, f"{type(error).__name__}: {error}") from error
    with response:
        yield response


def _stream_body(response: requests.Response, chunk_bytes: int) -> Iterator[bytes]:
    try:
        yield from response.raw.stream(chunk_bytes, decode_content=False)
    except urllib3.exceptions.HTTPError as error:  # urllib3 wraps socket errors and short reads
        raise _Retryable(f"connection lost while reading the body: {type(error).__name__}") from error


def _raise_for_status(url: str, response: requests.Response, ok: tuple[int, ...]) -> None:
    status = response.status_code
    if status in ok:
        return
    if status == 429 or 500 <= status < 600:
        raise _Retryable(f"HTTP {status}", parse_retry_after(response.headers.get("Retry-After")))
    raise DownloadError(url, f"HTTP {status} {response.reason or ''}".rstrip())


def _content_length(response: requests.Response) -> int | None:
    value = response.headers.get("Content-Length", "")
    return int(value) if value.strip().isdigit() else None


def _content_range(response: requests.Response) -> tuple[int | None, int | None, int | None]:
    """``Content-Range: bytes a-b/total`` -> (a, b + 1, total); absent or ``*`` parts become None."""
    match = _CONTENT_RANGE.match(response.headers.get("Content-Range", "").strip())
    first, last, total = (int(group) if group else None for group in match.groups()) if match else [None] * 3
    return first, None if last is None else last + 1, total


def _check_file(path: Path, expected_size: int | None, expected: Mapping[str, str]) -> tuple[str | None, str]:
    """(what is wrong or None, sha256); the size is compared first so a short file is not hashed."""
    size = path.stat().st_size
    if expected_size is not None and size != expected_size:
        return f"size {size} != expected {expected_size}", ""
    actual = file_digests(path, tuple(expected))
    for name, value in sorted(expected.items()):
        if actual[name] != value:
            return f"{name} {actual[name]} != expected {value}", actual["sha256"]
    return None, actual["sha256"]
