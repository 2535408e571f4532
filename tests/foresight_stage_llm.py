"""The loopback LLM server, cache and article shared by the OpenForesight stage tests."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from almanac.core.ids import content_id
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from tests.llm.conftest import PROMPTS_DIR, remote_role
from tests.support.llm_server import LLMTestServer, Reply

ARTICLE_TEXT = (
    "Brennford was chosen on Tuesday to host the 2027 Northern Games. The Northern Games Federation "
    "voted 14 to 9 for Brennford over Oldmere at its assembly in Linden Cross, federation president "
    "Ana Whitlock said. Brennford plans a new stadium by the river."
)


def question_block(title: str, answer: str, background: str = "Cities have bid to host the Games.") -> str:
    return (
        f"<question><question_title>{title}</question_title><background>Question start date: 2025-05-01. "
        f"{background}</background><resolution_criteria>Source of truth: the federation's announcement. "
        "Resolution date: June 10, 2025. Accepted answer format: a city name.</resolution_criteria>"
        f"<answer>{answer}</answer><answer_type>String (Location)</answer_type>"
        "<question_start_date>2025-05-01</question_start_date><resolution_date>2025-06-10</resolution_date></question>"
    )


def article(key: str, day: int = 20) -> dict[str, Any]:
    text = ARTICLE_TEXT + f" ({key})"
    return {
        "id": content_id(key),
        "url": f"https://news.example/{key}",
        "source_domain": "news.example",
        "title": f"Brennford wins ({key})",
        "text": text,
        "publish_date": datetime(2025, 5, day, tzinfo=UTC),
        "publish_month": "2025-05",
    }


@pytest.fixture
def llm_server() -> Iterator[Callable[[Callable[[str, int], Reply]], tuple[LLMTestServer, LLMConfig]]]:
    started: list[LLMTestServer] = []

    def start(script: Callable[[str, int], Reply]) -> tuple[LLMTestServer, LLMConfig]:
        # The script sees the whole conversation, so a repair round still names its article.
        server = LLMTestServer(
            lambda body, seen: script("\n".join(m["content"] for m in body["messages"]), seen)
        ).start()
        started.append(server)
        roles = {
            name: remote_role(server, name=name, model=f"{name}-model")
            for name in ("generator", "validator", "editor")
        }
        return server, LLMConfig(roles=roles, prompts_dir=str(PROMPTS_DIR))

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def cache(tmp_path: Path) -> Iterator[LLMCache]:
    with LLMCache(tmp_path / "llm.sqlite") as opened:
        yield opened
