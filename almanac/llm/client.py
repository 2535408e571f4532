"""The one entry point every stage uses to ask a role for answers: :func:`run_requests`.

For a list of requests it (1) looks every request up in the persistent cache, (2) sends each distinct
miss once — to the offline baseline, live to an OpenAI-compatible server with bounded concurrency,
pacing and retries, or through the Batch API — committing each answer to the cache as soon as it
arrives, and (3) returns one :class:`LLMResult` per request, in order. A request that fails for good
comes back with ``ok=False`` and a reason; the stage turns it into a reject row with
:meth:`LLMResult.reject_into`. Tokens, cost and cache hits/misses are added to the stage's ledger.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from almanac.core.rejects import StageLedger
from almanac.llm.accounting import record_usage
from almanac.llm.cache import CachedResponse, LLMCache, cache_key
from almanac.llm.config import RoleConfig
from almanac.llm.limits import RateLimiter
from almanac.llm.prompts import Message
from almanac.llm.transport import CallOutcome, call_chat, make_client


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
        if role.backend == "offline":
            from almanac.llm.offline import OFFLINE_VERSION

            payload["offline_version"] = OFFLINE_VERSION  # new rules invalidate old baseline answers
        return cache_key(payload)


@dataclass(frozen=True)
class LLMResult:
    item_id: str
    task: str
    ok: bool
    text: str  # the model's answer ("" when the call failed)
    error: str  # reject reason ("" when ok): llm_retries_exhausted, llm_http_400, llm_empty_response, ...
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


def run_requests(
    role: RoleConfig, requests: Sequence[LLMRequest], cache: LLMCache, ledger: StageLedger | None = None
) -> list[LLMResult]:
    """Synchronous wrapper of :func:`arun_requests` for stage code (runs its own event loop)."""
    return asyncio.run(arun_requests(role, requests, cache, ledger))


async def arun_requests(
    role: RoleConfig, requests: Sequence[LLMRequest], cache: LLMCache, ledger: StageLedger | None = None
) -> list[LLMResult]:
    keys = [request.key(role) for request in requests]
    hits = cache.get_many(keys)
    misses: dict[str, LLMRequest] = {}
    for request, key in zip(requests, keys, strict=True):
        if key not in hits:
            misses.setdefault(key, request)  # identical requests share one call
    started = time.monotonic()
    outcomes: dict[str, CallOutcome] = {}
    if misses:
        if role.backend == "offline":
            outcomes = _run_offline(role, misses, cache)
        elif role.batch:
            from almanac.llm.batch import run_batch

            outcomes = await run_batch(role, misses, cache)
        else:
            outcomes = await _run_live(role, misses, cache)
    results = [
        _result(role, request, key, hits, outcomes) for request, key in zip(requests, keys, strict=True)
    ]
    if ledger is not None:
        record_usage(ledger, role, results, outcomes.values(), time.monotonic() - started)
    return results


def _result(
    role: RoleConfig,
    request: LLMRequest,
    key: str,
    hits: Mapping[str, CachedResponse],
    outcomes: Mapping[str, CallOutcome],
) -> LLMResult:
    common = {
        "item_id": request.item_id,
        "task": request.task,
        "cache_key": key,
        "model": role.model,
        "prompt_version": request.prompt_version,
        "prompt_hash": request.prompt_hash,
    }
    if key in hits:
        hit = hits[key]
        return LLMResult(
            ok=True,
            text=hit.text,
            error="",
            detail="",
            cached=True,
            prompt_tokens=hit.prompt_tokens,
            completion_tokens=hit.completion_tokens,
            attempts=0,
            **common,
        )
    out = outcomes[key]
    return LLMResult(
        ok=not out.error,
        text=out.text,
        error=out.error,
        detail=out.detail,
        cached=False,
        prompt_tokens=out.prompt_tokens,
        completion_tokens=out.completion_tokens,
        attempts=out.attempts,
        **common,
    )


def _store(cache: LLMCache, role: RoleConfig, key: str, request: LLMRequest, outcome: CallOutcome) -> None:
    if outcome.error:
        return  # failures are not cached: a later run may succeed
    response = CachedResponse(outcome.text, outcome.prompt_tokens, outcome.completion_tokens)
    cache.put(key, role.endpoint, request.task, request.prompt_version, response)


def _run_offline(
    role: RoleConfig, misses: Mapping[str, LLMRequest], cache: LLMCache
) -> dict[str, CallOutcome]:
    from almanac.llm.offline import run_offline

    outcomes: dict[str, CallOutcome] = {}
    for key, request in misses.items():
        text = run_offline(request.task, request.variables, role.model)
        outcomes[key] = CallOutcome(text, 0, 0, 1)
        _store(cache, role, key, request, outcomes[key])
    return outcomes


async def _run_live(
    role: RoleConfig, misses: Mapping[str, LLMRequest], cache: LLMCache
) -> dict[str, CallOutcome]:
    limiter = RateLimiter(role.requests_per_minute, role.tokens_per_minute)
    queue = list(misses.items())
    queue.reverse()  # pop() from the end keeps input order
    outcomes: dict[str, CallOutcome] = {}
    async with make_client(role) as client:

        async def worker() -> None:
            while queue:
                key, request = queue.pop()
                outcome = await call_chat(client, role, request.messages, limiter)
                # Committed at once: a kill -9 loses only the calls still in flight.
                _store(cache, role, key, request, outcome)
                outcomes[key] = outcome

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(role.max_concurrency, len(queue))):
                    group.create_task(worker())
        except BaseExceptionGroup as group_error:
            raise group_error.exceptions[0] from None
    return outcomes
