"""A request to a role and its result: what the client takes, caches under a key, and returns.

Kept apart from :mod:`almanac.llm.client` so the batch backend and the accounting read these types
without importing the client that calls them.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from almanac.core.rejects import StageLedger
from almanac.llm.cache import CANONICAL_JSON, cache_key
from almanac.llm.config import RoleConfig
from almanac.llm.offline import OFFLINE_VERSION
from almanac.llm.prompts import Message

_escaped = json.encoder.encode_basestring  # as CANONICAL_JSON writes a string (ensure_ascii=False)


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
        """The cache key: the SHA-256 of :meth:`key_payload` as canonical JSON (``cache.cache_key``)."""
        return request_keys(role, (self,))[0]

    def key_payload(self, role: RoleConfig) -> dict[str, object]:
        """What the answer depends on: model and server, messages, sampling, prompt version and hash."""
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
        return payload


def request_keys(role: RoleConfig, requests: Iterable[LLMRequest]) -> list[str]:
    """``cache_key(request.key_payload(role))`` of each request, byte for byte, at a fifth of the CPU.

    Why: hashing a run's keys comes before its first call, so at ~30 us a key it delayed every call of
    a 1,920-request run by ~60 ms (docs/llm-client-cpu.md). The canonical JSON is written here piece by
    piece: the role's parts (endpoint, sampling, offline version) once per run, each request's strings
    with the escaping ``json`` uses; the keys of the payload are written in sorted order, as
    ``sort_keys`` would. A request whose parts are not all strings takes the general path.
    """
    head = '{"endpoint":' + CANONICAL_JSON.encode(role.endpoint) + ',"messages":['
    offline = ""
    if role.backend == "offline":
        offline = ',"offline_version":' + CANONICAL_JSON.encode(OFFLINE_VERSION)
    sampling = {"temperature": role.temperature, "max_tokens": role.max_tokens, "extra": dict(role.extra)}
    tail = ',"sampling":' + CANONICAL_JSON.encode(sampling) + "}"
    keys: list[str] = []
    for request in requests:
        strings = (request.task, request.prompt_version, request.prompt_hash)
        if not all(type(part) is str for message in request.messages for part in message) or not all(
            type(part) is str for part in strings
        ):
            keys.append(cache_key(request.key_payload(role)))
            continue
        messages = ",".join("[" + ",".join(map(_escaped, message)) + "]" for message in request.messages)
        task, version, prompt_hash = map(_escaped, strings)
        prompt = f',"prompt":{{"hash":{prompt_hash},"task":{task},"version":{version}}}'
        schema = ""
        if request.structured(role):
            schema = ',"response_format":' + CANONICAL_JSON.encode({"json_schema": request.schema})
        canonical = head + messages + "]" + offline + prompt + schema + tail
        keys.append(hashlib.sha256(canonical.encode("utf-8")).hexdigest())
    return keys


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
