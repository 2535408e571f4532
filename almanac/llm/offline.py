"""The offline backend: deterministic rule-based answers to every task, built on spaCy.

This is a baseline, not a mock. It lets the whole pipeline run without a key or GPU and gives a
reference point a model has to beat; it writes answers in exactly the text format the prompts ask
models for, so the same parsers and validators read both. Calls reach it through the same client
(and cache) as a remote model, at zero token cost. The role's ``model`` names the spaCy pipeline.
Each task's rules live with the task (:attr:`almanac.llm.registry.Task.offline`).
"""

from __future__ import annotations

from collections.abc import Mapping

from almanac.llm.registry import lookup

# Bump when any rule changes: it is part of the cache key, so old baseline answers are not reused.
OFFLINE_VERSION = "3"  # 3: slow-moving stories open earlier; numeric candidates fill free slots


def run_offline(task: str, variables: Mapping[str, str], model: str) -> str:
    return lookup(task).offline(variables, model)
