from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from almanac.llm.cache import LLMCache
from almanac.llm.config import RoleConfig
from almanac.llm.request import LLMRequest
from tests.support.llm_server import LLMTestServer, Script

PROMPTS_DIR = Path(__file__).resolve().parents[2] / "prompts"


@pytest.fixture
def serve() -> Iterator[Callable[..., LLMTestServer]]:
    """Start loopback servers on demand; all are stopped after the test."""
    started: list[LLMTestServer] = []

    def start(script: Script | None = None, latency_s: float = 0.0) -> LLMTestServer:
        server = LLMTestServer(script, latency_s).start()
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()


def remote_role(server: LLMTestServer | str, **overrides: Any) -> RoleConfig:
    """A role pointed at the loopback server, with fast backoff so retry tests take milliseconds."""
    settings: dict[str, Any] = {
        "backend": "openai",
        "model": "test-model",
        "base_url": server if isinstance(server, str) else server.url,
        "max_concurrency": 4,
        "backoff_base_s": 0.01,
        "backoff_max_s": 0.05,
        "timeout_s": 5.0,
        "max_retries": 3,
        "name": "generator",
    }
    settings.update(overrides)
    return RoleConfig(**settings)


def message(prefix: str, index: int) -> str:
    return f"{prefix} item {index};"  # the ';' keeps "item 1;" from matching inside "item 10;"


def requests_for(prefix: str, n: int) -> list[LLMRequest]:
    return [LLMRequest(f"{prefix}-{i}", "echo", (("user", message(prefix, i)),), "1", "h1") for i in range(n)]


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[LLMCache]:
    with LLMCache(tmp_path / "cache" / "llm.sqlite") as opened:
        yield opened


def with_fields(role: RoleConfig, **changes: Any) -> RoleConfig:
    return dataclasses.replace(role, **changes)
