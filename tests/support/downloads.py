"""Shared pieces of the downloader tests: a fixture server per test and a recorded sleep."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from almanac.core.download import DownloadConfig
from tests.support.http_fixture_server import FixtureServer

FAST = DownloadConfig(
    retries=4, backoff_initial_s=1.0, backoff_max_s=8.0, timeout_s=5.0, chunk_bytes=16 * 1024
)


class SleepRecorder:
    """Stands in for ``time.sleep`` so backoff is asserted on, not waited for."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[FixtureServer]:
    root = tmp_path / "www"
    root.mkdir()
    with FixtureServer(root) as running:
        yield running


@pytest.fixture
def sleep() -> SleepRecorder:
    return SleepRecorder()


def put(server: FixtureServer, path: str, data: bytes) -> str:
    target = server.root / path.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    return server.url(path)


def blob(size: int, seed: int = 7) -> bytes:
    return random.Random(seed).randbytes(size)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
