"""Cache keys written piece by piece (request_keys) are the SHA-256 of the payload's canonical JSON, byte
for byte: a changed key would make every rerun repeat its calls."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from almanac.llm.config import RoleConfig
from almanac.llm.request import LLMRequest, request_keys

SCHEMA = {"type": "object", "required": ["b", "a"], "properties": {"b": {"type": "number"}, "a": {}}}


def canonical_key(payload: dict[str, Any]) -> str:
    """The key's definition: sorted keys, no spaces, non-ASCII as itself, hashed as UTF-8."""
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_a_plain_request_hashes_the_canonical_json_written_out_by_hand() -> None:
    role = RoleConfig(backend="openai", model="m", base_url="http://h/v1/", temperature=0.5, max_tokens=9)
    request = LLMRequest("i", "qgen", (("system", "be brief"), ("user", 'say "é"\n')), "2", "abc")
    written = (
        '{"endpoint":"openai|http://h/v1|m",'
        '"messages":[["system","be brief"],["user","say \\"é\\"\\n"]],'
        '"prompt":{"hash":"abc","task":"qgen","version":"2"},'
        '"sampling":{"extra":{},"max_tokens":9,"temperature":0.5}}'
    )
    expected = hashlib.sha256(written.encode("utf-8")).hexdigest()
    assert request_keys(role, [request]) == [expected]
    assert request.key(role) == expected


def test_offline_structured_and_odd_requests_keep_the_payloads_key() -> None:
    roles = [
        RoleConfig(backend="offline", model="baseline"),
        RoleConfig(
            backend="openai",
            model="m",
            base_url="http://h/v1",
            structured_outputs=True,
            temperature=1e-07,
            extra={"top_p": 0.9, "stop": ["\u2028", "\x00"], "seed": 7},
        ),
    ]
    requests = [
        LLMRequest("a", "t", (("user", "plain"),), "1", "h"),
        LLMRequest("b", "t", (("user", "ctl \x01\t\u2603 \U0001f600 \\ /"),), "1", "h", schema=SCHEMA),
        LLMRequest("c", "t", (), "v", ""),
        LLMRequest("d", "t", (("user", 3),), "1", "h"),  # type: ignore[arg-type]  # not a string: general path
    ]
    for role in roles:
        expected = []
        for request in requests:
            payload: dict[str, Any] = {
                "endpoint": role.endpoint,
                "messages": [list(message) for message in request.messages],
                "sampling": {
                    "temperature": role.temperature,
                    "max_tokens": role.max_tokens,
                    "extra": dict(role.extra),
                },
                "prompt": {
                    "task": request.task,
                    "version": request.prompt_version,
                    "hash": request.prompt_hash,
                },
            }
            if role.structured_outputs and request.schema:
                payload["response_format"] = {"json_schema": request.schema}
            if role.backend == "offline":
                payload["offline_version"] = "3"
            expected.append(canonical_key(payload))
        assert request_keys(role, requests) == expected
        assert len(set(expected)) == len(requests)
