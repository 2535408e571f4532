"""kill -9 of a worker mid-run loses at most its in-flight calls; the rerun repeats none of the rest."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from almanac.llm.cache import LLMCache
from almanac.llm.client import run_requests
from tests.llm.conftest import message, remote_role, requests_for
from tests.support.llm_server import LLMTestServer

ROOT = Path(__file__).resolve().parents[2]
ITEMS = 40


@pytest.mark.slow  # a client process killed mid-run, then a rerun
def test_kill_minus_nine_then_rerun(serve: Callable[..., LLMTestServer], tmp_path: Path) -> None:
    server = serve(latency_s=0.1)
    cache_path = tmp_path / "llm.sqlite"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    worker = subprocess.Popen(
        [sys.executable, "-m", "tests.llm._worker", server.url, str(cache_path), str(ITEMS)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while sum(server.completed.values()) < 12 and time.monotonic() < deadline and worker.poll() is None:
        time.sleep(0.01)
    worker.send_signal(signal.SIGKILL)
    worker.wait()
    assert worker.returncode == -signal.SIGKILL, worker.stderr.read() if worker.stderr else ""
    time.sleep(0.3)  # let requests the dead worker had sent finish on the server side
    answered_before = {i for i in range(ITEMS) if server.count(message("resume", i))}
    assert 12 <= len(answered_before) < ITEMS  # killed mid-run, not before or after

    role = remote_role(server)
    requests = requests_for("resume", ITEMS)
    with LLMCache(cache_path) as cache:
        committed_keys = set(cache.get_many(request.key(role) for request in requests))
        committed = {i for i, request in enumerate(requests) if request.key(role) in committed_keys}
        assert len(committed) >= 12 - role.max_concurrency
        results = run_requests(role, requests, cache)

    assert all(result.ok for result in results)
    counts = [server.count(message("resume", i)) for i in range(ITEMS)]
    assert all(counts[i] == 1 for i in committed)  # finished items: never asked again
    asked_twice = [i for i in range(ITEMS) if counts[i] > 1]
    assert len(asked_twice) <= role.max_concurrency  # only the in-flight calls were lost
    assert all(counts[i] == 1 for i in range(ITEMS) if i not in answered_before)
