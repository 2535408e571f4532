"""The offline backend: deterministic rule-based implementations of every task, built on spaCy.

This is a baseline, not a mock. It lets the whole pipeline run without a key or GPU and gives a
reference point a model has to beat; it writes answers in exactly the text format the prompts ask
models for, so the same parsers and validators read both. Calls reach it through the same client
(and cache) as a remote model, at zero token cost. The role's ``model`` names the spaCy pipeline.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from almanac.llm.offline.edit import date_repair, leakage
from almanac.llm.offline.events import article_category, occurrence_date
from almanac.llm.offline.judge import select_best, validate
from almanac.llm.offline.negatives import event_negatives
from almanac.llm.offline.qgen import generate
from almanac.llm.offline.questions import argument_question
from almanac.llm.offline.timeline import (
    event_arguments,
    timeline_complement,
    timeline_extract,
    timeline_reorder,
)

# Bump when any rule changes: it is part of the cache key, so old baseline answers are not reused.
OFFLINE_VERSION = "2"  # 2: whole-word matching shared with the leakage re-scan (almanac.core.text)

OFFLINE_TASKS: dict[str, Callable[[Mapping[str, str], str], str]] = {
    "qgen": generate,
    "validate": validate,
    "select_best": select_best,
    "leakage": leakage,
    "date_repair": date_repair,
    "article_category": article_category,
    "occurrence_date": occurrence_date,
    "timeline_extract": timeline_extract,
    "timeline_complement": timeline_complement,
    "timeline_reorder": timeline_reorder,
    "event_arguments": event_arguments,
    "argument_question": argument_question,
    "event_negatives": event_negatives,
}


def run_offline(task: str, variables: Mapping[str, str], model: str) -> str:
    if task not in OFFLINE_TASKS:
        raise KeyError(f"the offline backend has no rules for task {task!r}; known: {sorted(OFFLINE_TASKS)}")
    return OFFLINE_TASKS[task](variables, model)
