"""Batch mode: send a stage's cache misses through the OpenAI Batch API instead of live calls.

The input is the standard batch JSONL (one ``{"custom_id", "method", "url", "body"}`` per line) —
also what vLLM's offline runner (``python -m vllm.entrypoints.openai.run_batch``) reads and
writes, so :func:`write_batch_input` / :func:`read_batch_output` serve both. The custom_id is the
request's cache key, so answers map straight back into the cache.

Resumable: once a batch is created its id is saved in a small state file named after the exact set
of requests; a rerun of the same stage finds the file and re-attaches to the running batch instead
of paying for a second one. If a batch is still running after ``batch_max_wait_s``,
:class:`BatchPending` stops the stage; rerun it later to collect the answers.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from almanac.core.io import read_json, write_json, write_text
from almanac.core.lazy import lazy_module
from almanac.core.stage import StageError
from almanac.llm.cache import CachedFailure, CachedResponse, LLMCache
from almanac.llm.config import RoleConfig
from almanac.llm.request import LLMRequest
from almanac.llm.secrets import redact
from almanac.llm.transport import (
    CONTENT,
    MODEL_MISMATCH,
    REFUSED,
    SERVER,
    TRANSPORT,
    CallOutcome,
    answer_failure,
    make_client,
    model_mismatch,
    request_body,
    response_format,
    settle_refusals,
)

if TYPE_CHECKING:
    import openai
else:
    openai = lazy_module("openai")

log = logging.getLogger(__name__)

CHAT_URL: Final = "/v1/chat/completions"
MAX_REQUESTS_PER_BATCH = 50_000  # the OpenAI Batch API limit
_TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})


class BatchPending(StageError):
    """The batch is still running; its id is saved, so rerunning the stage re-attaches to it."""


def batch_lines(role: RoleConfig, requests: Mapping[str, LLMRequest]) -> list[str]:
    return [
        json.dumps(
            {
                "custom_id": key,
                "method": "POST",
                "url": CHAT_URL,
                "body": request_body(
                    role, request.messages, response_format(role, request.task, request.schema)
                ),
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        for key, request in sorted(requests.items())
    ]


def write_batch_input(role: RoleConfig, requests: Mapping[str, LLMRequest], path: str | Path) -> int:
    """Write the batch JSONL (custom_id = cache key); returns the number of lines."""
    lines = batch_lines(role, requests)
    write_text("".join(line + "\n" for line in lines), path)
    return len(lines)


def read_batch_output(
    text: str, secrets: tuple[str, ...] = (), role: RoleConfig | None = None
) -> dict[str, CallOutcome]:
    """Parse an output or error JSONL (OpenAI or vLLM) into outcomes by custom_id; with ``role``, answers
    are checked as live ones are (the model that answered, cut or reasoning-only answers)."""
    outcomes: dict[str, CallOutcome] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            custom_id = str(record["custom_id"])
        except (ValueError, KeyError, TypeError):
            log.warning("batch output line %d is not a valid record; skipped", number)
            continue
        outcomes[custom_id] = _outcome(record, secrets, role)
    return outcomes


def _outcome(record: Mapping[str, Any], secrets: tuple[str, ...], role: RoleConfig | None) -> CallOutcome:
    response = record.get("response") or {}
    status = int(response.get("status_code") or 0)
    body = response.get("body") or {}
    if record.get("error") or status != 200:
        detail = redact(
            json.dumps(record.get("error") or body.get("error") or body, sort_keys=True)[:500], secrets
        )
        # A 4xx other than a rate limit is this request's own problem; anything else may pass next time.
        if 400 <= status < 500 and status not in (408, 409, 429):  # settled like live refusals
            return CallOutcome("", 0, 0, 1, "llm_batch_error", f"HTTP {status}: {detail}", REFUSED)
        cause = "HTTP 429 rate limited" if status == 429 else f"batch line failed (HTTP {status})"
        return CallOutcome("", 0, 0, 1, "llm_batch_error", f"HTTP {status}: {detail}", TRANSPORT, cause)
    try:
        choice = body["choices"][0]
        message = choice["message"]
        text = message["content"] or ""
    except (KeyError, IndexError, TypeError):
        # Not an answer to this request: the server's fault, asked again in the next batch.
        cause = "batch answers without choices"
        return CallOutcome("", 0, 0, 1, "llm_batch_error", "batch answer has no choices", SERVER, cause)
    served = str(body.get("model") or "")
    if role is not None and not role.answers_as(served):
        detail = model_mismatch(role, served)
        return CallOutcome("", 0, 0, 1, MODEL_MISMATCH, detail, SERVER, "model mismatch")
    usage = body.get("usage") or {}
    prompt_tokens, completion_tokens = (
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
    )
    reasoning = str(message.get("reasoning_content") or message.get("reasoning") or "")
    if role is not None:
        failure = answer_failure(role, str(text), choice.get("finish_reason"), reasoning)
        if failure is not None:
            return CallOutcome("", prompt_tokens, completion_tokens, 1, *failure, CONTENT)
    if not str(text).strip():
        return CallOutcome(
            "", prompt_tokens, completion_tokens, 1, "llm_empty_response", "empty batch answer", CONTENT
        )
    return CallOutcome(str(text), prompt_tokens, completion_tokens, 1)


def import_batch_output(
    role: RoleConfig, requests: Mapping[str, LLMRequest], text: str, cache: LLMCache, stage: str = ""
) -> dict[str, CallOutcome]:
    """Fill the cache from an output file (e.g. produced by vLLM's offline batch runner)."""
    outcomes = _store_outcomes(role, requests, read_batch_output(text, role=role), cache, stage)
    return {key: outcomes[key] for key in requests if key in outcomes}


def _store_outcomes(
    role: RoleConfig,
    requests: Mapping[str, LLMRequest],
    outcomes: Mapping[str, CallOutcome],
    cache: LLMCache,
    stage: str,
) -> dict[str, CallOutcome]:
    """Answers in one transaction; content failures kept with their reason; transport and server
    failures not kept. Returns the outcomes with their 4xx refusals settled."""
    outcomes = settle_refusals(outcomes)
    rows = [
        (
            key,
            role.endpoint,
            requests[key].task,
            requests[key].prompt_version,
            CachedResponse(out.text, out.prompt_tokens, out.completion_tokens),
        )
        for key, out in outcomes.items()
        if key in requests and not out.error
    ]
    cache.put_many(rows)
    for key, out in outcomes.items():
        if key in requests and out.kind == CONTENT:
            request, failure = requests[key], CachedFailure(out.error, out.detail)
            cache.put_failure(key, role.endpoint, request.task, request.prompt_version, failure, stage)
    return outcomes


def state_path(cache: LLMCache, role: RoleConfig, keys: Iterable[str]) -> Path:
    digest = hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()[:20]
    return cache.path.parent / "llm_batches" / f"{role.name or 'role'}-{digest}.json"


async def run_batch(
    role: RoleConfig, misses: Mapping[str, LLMRequest], cache: LLMCache, stage: str = ""
) -> dict[str, CallOutcome]:
    keys = sorted(misses)
    chunks = [keys[i : i + MAX_REQUESTS_PER_BATCH] for i in range(0, len(keys), MAX_REQUESTS_PER_BATCH)]
    outcomes: dict[str, CallOutcome] = {}
    async with make_client(role, builtin_retries=role.max_retries) as client:
        parts = await asyncio.gather(
            *(_run_chunk(client, role, {key: misses[key] for key in chunk}, cache, stage) for chunk in chunks)
        )
    for part in parts:
        outcomes.update(part)
    return outcomes


async def _run_chunk(
    client: openai.AsyncOpenAI,
    role: RoleConfig,
    requests: Mapping[str, LLMRequest],
    cache: LLMCache,
    stage: str,
) -> dict[str, CallOutcome]:
    state_file = state_path(cache, role, requests)
    batch_id = read_json(state_file)["batch_id"] if state_file.exists() else ""
    if batch_id:
        log.info("llm role %s: re-attaching to batch %s", role.name, batch_id)
    else:
        payload = "".join(line + "\n" for line in batch_lines(role, requests)).encode("utf-8")
        uploaded = await client.files.create(file=(state_file.stem + ".jsonl", payload), purpose="batch")
        batch = await client.batches.create(
            input_file_id=uploaded.id,
            endpoint=CHAT_URL,
            completion_window="24h",
            metadata={"almanac_role": role.name},
        )
        batch_id = batch.id
        write_json(
            {"batch_id": batch_id, "input_file_id": uploaded.id, "requests": len(requests)}, state_file
        )
    batch = await _wait(client, role, batch_id)
    secrets = (client.api_key,)
    outcomes: dict[str, CallOutcome] = {}
    for file_id in (batch.output_file_id, batch.error_file_id):
        if file_id:
            content = await client.files.content(file_id)
            outcomes.update(read_batch_output(content.text, secrets, role))
    # The state file goes only after the answers are safe.
    outcomes = _store_outcomes(role, requests, outcomes, cache, stage)
    state_file.unlink(missing_ok=True)
    missing = CallOutcome(
        "",
        0,
        0,
        1,
        "llm_batch_error",
        f"no answer in batch {batch_id} (status {batch.status})",
        TRANSPORT,
        f"no answer in a {batch.status} batch",
    )
    return {key: outcomes.get(key, missing) for key in requests}


async def _wait(client: openai.AsyncOpenAI, role: RoleConfig, batch_id: str) -> Any:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + role.batch_max_wait_s
    while True:
        batch = await client.batches.retrieve(batch_id)
        if batch.status in _TERMINAL:
            return batch
        if loop.time() >= deadline:
            raise BatchPending(
                f"llm role {role.name!r}: batch {batch_id} is {batch.status} after {role.batch_max_wait_s}s; "
                "rerun the stage later to collect its answers"
            )
        await asyncio.sleep(min(role.batch_poll_s, max(0.0, deadline - loop.time())))
