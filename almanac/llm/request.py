"""A request to a role and its result: what the client takes, caches under a key, and returns.

Kept apart from :mod:`almanac.llm.client` so the batch backend and the accounting read these types
without importing the client that calls them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from almanac.core.rejects import StageLedger
from almanac.llm.cache import cache_key
from almanac.llm.config import RoleConfig
from almanac.llm.offline import OFFLINE_VERSION
from almanac.llm.prompts import Message


@dataclass(frozen=True)
class LLMRequest:
    item_id: str  # the stage's record id: failures become reject rows under it
    task: str
    messages: tuple[Message, ...]
    prompt_version: str
    prompt_hash: str
    variables: Mapping[str, str] = field(
        default_factory=dict
    )  # the template inputs (the offline backend reads them)
    schema: Mapping[str, Any] | None = None  # the task's reply schema, sent when the role asks for JSON

    def structured(self, role: RoleConfig) -> bool:
        """Whether this request asks ``role`` for a JSON reply under its schema (response_format)."""
        return bool(role.structured_outputs and self.schema and role.backend != "offline")

    def key(self, role: RoleConfig) -> str:
        payload: dict[str, object] = {
            "endpoint": role.endpoint,
            "messages": [list(message) for message in self.messages],
            "sampling": {
                "temperature": role.temperature,
                "max_tokens": role.max_tokens,
                "extra": dict(role.extra),
            },
            "prompt": {"task": self.task, "version": self.prompt_version, "hash": self.prompt_hash},
        }
        if self.structured(role):  # the schema shapes the answer: another schema, another answer
            payload["response_format"] = {"json_schema": self.schema}
        if role.backend == "offline":
            payload["offline_version"] = OFFLINE_VERSION  # new rules invalidate old baseline answers
        return cache_key(payload)


@dataclass(frozen=True)
class LLMResult:
    item_id: str
    task: str
    ok: bool
    text: str  # the model's answer ("" when the call failed)
    error: str  # reject reason ("" when ok): llm_retries_exhausted, llm_error_body, llm_truncated, ...
    detail: str  # what went wrong, scrubbed of keys
    cached: bool
    prompt_tokens: int
    completion_tokens: int
    attempts: int  # HTTP attempts made for this answer in this run (0 for cache hits)
    cache_key: str
    model: str
    prompt_version: str
    prompt_hash: str

    def reject_into(self, ledger: StageLedger, source: str, reason: str = "", detail: str = "") -> None:
        ledger.reject(self.item_id, reason or self.error, detail or self.detail, source)
