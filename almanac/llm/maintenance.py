"""``almanac llm forget-failures``: clear cached failures from the command line.

A content failure (an answer cut at ``max_tokens``, all reasoning, empty, a 4xx of its own) is cached so a
rerun does not pay for it again; once its cause is fixed outside the request (a server's setting, a
model swapped under the same name), forgetting it makes the next run of the stage ask again. Only the
failures table is touched: answers stay.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config


def forget_failures(
    params: Mapping[str, Any], stage: str | None = None, reason: str | None = None, task: str | None = None
) -> str:
    """Drop the matching cached failures; returns what was done, in words (a line or two)."""
    path = Path(parse_llm_config(params).cache_path)
    if not path.is_file():
        return f"no LLM cache at {path}: nothing to forget"
    with LLMCache(path) as cache:
        forgotten = cache.forget_failures(task=task, stage=stage, reason=reason)
        left = sum(cache.failure_counts().values())
    scope = ", ".join(
        f"{name} {value}" for name, value in (("stage", stage), ("reason", reason), ("task", task)) if value
    )
    said = f"forgot {forgotten} cached failure(s){' of ' + scope if scope else ''} in {path}"
    if forgotten:
        said += "; the next run of their stages asks again (dvc repro reruns a stage whose last run failed)"
    return f"{said}\n{left} cached failure(s) left"
