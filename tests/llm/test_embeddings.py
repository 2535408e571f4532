"""Embeddings through almanac.llm against the loopback OpenAI-compatible server: cached, accounted, retried."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from almanac.core.rejects import StageLedger
from almanac.llm import LLMCache, run_embeddings
from almanac.llm.config import LLMConfigError, RoleConfig
from almanac.llm.embeddings import BATCH_INPUTS
from almanac.llm.transport import LLMFatalError
from tests.llm.conftest import remote_role
from tests.support.llm_server import LLMTestServer, Reply, bag_of_words


def test_vectors_come_in_order_and_a_rerun_makes_no_request(
    serve: Callable[..., LLMTestServer], tmp_path: Path
) -> None:
    server = serve()
    role = remote_role(server, name="embedder")
    texts = ["harbour strike ends", "mayor elected", "harbour strike ends"]  # a repeat is asked once
    with LLMCache(tmp_path / "c.sqlite") as cache:
        first = run_embeddings(role, texts, cache, StageLedger("s"))
        assert [list(v) for v in first] == [bag_of_words(t) for t in texts]
        assert [body["input"] for body in server.embedding_bodies] == [
            ["harbour strike ends", "mayor elected"]
        ]
        ledger = StageLedger("s")
        again = run_embeddings(role, texts, cache, ledger)
    assert again == first
    assert len(server.embedding_bodies) == 1
    # Tracked: 3 vectors used, 8 prompt tokens (the server counts words: 3 + 2, and the repeat's 3 again);
    # this run's own work: all three from the cache, no call.
    assert ledger.extra["llm"] == {
        "embedder.requests": 3,
        "embedder.prompt_tokens": 8,
        "embedder.cost_usd": 0.0,
    }
    assert ledger.run_counts["llm.embedder.cache_hits"] == 3
    assert ledger.run_counts["llm.embedder.calls"] == 0


def test_misses_go_in_batches(serve: Callable[..., LLMTestServer], tmp_path: Path) -> None:
    server = serve()
    texts = [f"text number {i}" for i in range(BATCH_INPUTS + 1)]
    with LLMCache(tmp_path / "c.sqlite") as cache:
        run_embeddings(remote_role(server, name="embedder"), texts, cache)
    assert sorted(len(body["input"]) for body in server.embedding_bodies) == [1, BATCH_INPUTS]


def test_server_errors_are_retried_then_answered(serve: Callable[..., LLMTestServer], tmp_path: Path) -> None:
    server = serve()
    server.embedding_failures = [Reply(status=500), Reply(status=429)]
    with LLMCache(tmp_path / "c.sqlite") as cache:
        (vector,) = run_embeddings(remote_role(server, name="embedder"), ["port"], cache)
    assert list(vector) == bag_of_words("port")
    assert len(server.embedding_bodies) == 3


def test_a_refused_key_stops_at_once_and_exhausted_retries_stop_with_the_cause(
    serve: Callable[..., LLMTestServer], tmp_path: Path
) -> None:
    server = serve()
    server.embedding_failures = [Reply(status=401)]
    with LLMCache(tmp_path / "c.sqlite") as cache, pytest.raises(LLMFatalError, match="401 unauthorized"):
        run_embeddings(remote_role(server, name="embedder"), ["port"], cache)
    server.embedding_failures = [Reply(status=503)] * 4  # the first try and max_retries=3 retries
    with LLMCache(tmp_path / "c.sqlite") as cache, pytest.raises(LLMFatalError, match="embeddings failed"):
        run_embeddings(remote_role(server, name="embedder"), ["port"], cache)
    with LLMCache(tmp_path / "c.sqlite") as cache:
        assert len(cache) == 0  # nothing cached from a failure


def test_the_offline_backend_has_no_embeddings(tmp_path: Path) -> None:
    with LLMCache(tmp_path / "c.sqlite") as cache, pytest.raises(LLMConfigError, match="backend: openai"):
        run_embeddings(RoleConfig(name="embedder"), ["x"], cache)
