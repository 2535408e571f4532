"""The one entry point every stage uses to ask a role for answers: :func:`run_requests`.

For a list of requests it (1) looks every request up in the persistent cache, (2) sends each distinct
miss once — to the offline baseline, live to an OpenAI-compatible server with bounded concurrency,
pacing and retries, or through the Batch API — committing each answer to the cache as soon as it
arrives (those of one event-loop turn together, :mod:`almanac.llm.answers`), and (3) returns one
:class:`LLMResult` per request, in order. A request that fails for good comes back with ``ok=False``
and a reason; the stage turns it into a reject row with :meth:`LLMResult.reject_into`. Tokens, cost
and cache hits/misses are added to the stage's ledger.

A content failure is cached like an answer (a rerun returns it without a call); a transport or server
failure is not. When more than ``max_failed_share`` of the calls fail on transport or at the server, the
run stops early with :class:`LLMFatalError` naming the cause, so the stage exits non-zero and writes
nothing; so it does when more than that share of the answers fail alike for one content reason (cut at
``max_tokens``, reasoning only, empty, the same 4xx), with the advice that fixes it.
"""

from __future__ import annotations

import asyncio
import importlib
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from almanac.core.progress import Bar, progress
from almanac.core.rejects import StageLedger
from almanac.llm.accounting import record_usage
from almanac.llm.answers import AnswerWriter
from almanac.llm.batch import run_batch
from almanac.llm.cache import CachedFailure, CachedResponse, LLMCache
from almanac.llm.config import RoleConfig
from almanac.llm.http_chat import ChatPoster
from almanac.llm.limits import RateLimiter
from almanac.llm.offline import run_offline
from almanac.llm.request import LLMRequest, LLMResult, request_keys
from almanac.llm.transport import (
    CONTENT,
    ENDPOINT_KINDS,
    MODEL_MISMATCH,
    RAISE_MAX_TOKENS,
    REFUSED,
    CallOutcome,
    LLMFatalError,
    call_chat,
    response_format,
    settle_refusals,
)

T = TypeVar("T")


def run_requests(
    role: RoleConfig,
    requests: Sequence[LLMRequest],
    cache: LLMCache,
    ledger: StageLedger | None = None,
    share_of: int = 0,
) -> list[LLMResult]:
    """Synchronous wrapper of :func:`arun_requests` for stage code (runs its own event loop)."""
    return run_in_loop(arun_requests(role, requests, cache, ledger, share_of))


def run_in_loop(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)``, on uvloop's event loop when it is installed (``pip install uvloop``, the
    ``fast`` extra): a tenth less client CPU per call at 64 in flight (docs/llm-client-cpu.md)."""
    try:
        uvloop = importlib.import_module("uvloop")
    except ImportError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


async def arun_requests(
    role: RoleConfig,
    requests: Sequence[LLMRequest],
    cache: LLMCache,
    ledger: StageLedger | None = None,
    share_of: int = 0,
) -> list[LLMResult]:
    """``share_of``: the number of requests a content failure's share is taken of, when these requests
    are a part of a larger set (a repair round of a task's first answers); default: these requests."""
    keys = request_keys(role, requests)
    stage = ledger.stage if ledger is not None else ""
    hits = cache.get_many(keys)
    failed_before = cache.get_failures(key for key in keys if key not in hits)
    misses: dict[str, LLMRequest] = {}
    sharing = Counter[str]()  # requests answered by each call: identical requests share one
    for request, key in zip(requests, keys, strict=True):
        if key not in hits and key not in failed_before:
            misses.setdefault(key, request)
            sharing[key] += 1
    started = time.monotonic()
    outcomes: dict[str, CallOutcome] = {}
    # The bar counts requests; those the cache answers are done before the first call.
    cached = len(requests) - sum(sharing.values())
    bar: Bar[None] = progress(desc=f"llm {role.name}", unit="request", total=len(requests), initial=cached)
    try:
        if misses:

            def answered(key: str) -> None:
                bar.update(sharing[key])

            if role.backend == "offline":
                outcomes = _run_offline(role, misses, cache, answered, stage)
            elif role.batch:
                outcomes = await run_batch(role, misses, cache, stage)  # all at once, when the batch is done
                bar.update(sum(sharing.values()))
            else:
                # The content stop of stop_if_answers_unusable, seen early: a run whose every answer is cut
                # at max_tokens stops after a few calls instead of paying for all of them.
                total = max(share_of, len(set(keys)))
                budget = _ContentBudget(
                    total,
                    role.max_failed_share * total,
                    Counter(failure.reason for failure in failed_before.values()),
                )
                outcomes = await _run_live(role, misses, cache, answered, stage, budget)
            stop_if_too_many_failed(role, outcomes.values(), len(misses))
    finally:
        bar.close()
    results = [
        _result(role, request, key, hits, failed_before, outcomes)
        for request, key in zip(requests, keys, strict=True)
    ]
    if ledger is not None:
        record_usage(ledger, role, results, outcomes.values(), time.monotonic() - started)
    stop_if_answers_unusable(role, results, outcomes, share_of)
    return results


def _result(
    role: RoleConfig,
    request: LLMRequest,
    key: str,
    hits: Mapping[str, CachedResponse],
    failed_before: Mapping[str, CachedFailure],
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
    if key in failed_before:
        failure = failed_before[key]
        return LLMResult(
            ok=False,
            text="",
            error=failure.reason,
            detail=failure.detail,
            cached=True,
            prompt_tokens=0,
            completion_tokens=0,
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


def stop_if_too_many_failed(
    role: RoleConfig, outcomes: Collection[CallOutcome], calls: int, stopped_early: bool = False
) -> None:
    """Raise :class:`LLMFatalError` when transport and server failures exceed ``max_failed_share`` of
    ``calls``, or when any reply came from another model than the one asked (batch answers)."""
    for outcome in outcomes:
        if outcome.error == MODEL_MISMATCH:
            raise LLMFatalError(outcome.detail)
    failed = [outcome for outcome in outcomes if outcome.kind in ENDPOINT_KINDS]
    if not failed or (len(failed) <= role.max_failed_share * calls and not stopped_early):
        return
    causes = Counter(outcome.cause or outcome.error for outcome in failed).most_common()
    said = causes[0][0] if len(causes) == 1 else ", ".join(f"{cause} ({n})" for cause, n in causes)
    unfinished = calls - len(outcomes)  # never sent, or cancelled in flight when the run stopped
    tally = f"{len(failed)} of {calls} calls failed"
    if unfinished > 0:
        tally += f" (stopped early, {unfinished} not finished)"
    raise LLMFatalError(f"llm role {role.name!r}: {tally}: {said} ({role.server})")


def stop_if_answers_unusable(
    role: RoleConfig, results: Sequence[LLMResult], outcomes: Mapping[str, CallOutcome], share_of: int = 0
) -> None:
    """Raise :class:`LLMFatalError` when more than ``max_failed_share`` of the distinct requests (or of
    ``share_of``) failed for one content reason, asked now or cached: an answer budget too small for
    the model, or a model that answers nothing, must stop the stage, not build it empty."""
    failed: dict[str, LLMResult] = {}
    for result in results:
        kind = outcomes[result.cache_key].kind if result.cache_key in outcomes else CONTENT
        if not result.ok and kind == CONTENT:
            failed.setdefault(result.cache_key, result)
    if not failed:
        return
    total = max(share_of, len({result.cache_key for result in results}))
    by_reason = Counter(result.error for result in failed.values())
    reason, count = min(by_reason.items(), key=lambda item: (-item[1], item[0]))
    if count <= role.max_failed_share * total:
        return
    example = next(result for result in failed.values() if result.error == reason)
    raise LLMFatalError(_unusable(role, count, total, reason, example.detail))


def _unusable(role: RoleConfig, count: int, total: int, reason: str, detail: str, unfinished: int = 0) -> str:
    advice = "" if RAISE_MAX_TOKENS in detail else "; once fixed: almanac llm forget-failures"
    early = f" (stopped early, {unfinished} not finished)" if unfinished else ""
    return (
        f"llm role {role.name!r}: {count} of {total} answers failed with {reason}{early}: "
        f"{detail[:300]}{advice} ({role.model} at {role.server})"
    )


@dataclass
class _ContentBudget:
    total: int  # answers the share is taken of
    allowed: float  # answers that may fail for one content reason
    seen: Counter[str]  # reason -> answers failed so far (cached or now)


def _store(
    writer: AnswerWriter, role: RoleConfig, key: str, request: LLMRequest, outcome: CallOutcome, stage: str
) -> Awaitable[None] | None:
    """Keep an answer or a content failure. A live answer (``role.backend`` not offline) is committed with
    the others of its loop turn: await what this returns (answers.AnswerWriter)."""
    if outcome.kind == CONTENT:  # asking again would give the same: keep the reason, not the call
        failure = CachedFailure(outcome.error, outcome.detail)
        writer.cache.put_failure(key, role.endpoint, request.task, request.prompt_version, failure, stage)
        return None
    if outcome.error:
        return None  # transport and server failures are not cached: a later run may succeed
    response = CachedResponse(outcome.text, outcome.prompt_tokens, outcome.completion_tokens)
    row = (key, role.endpoint, request.task, request.prompt_version, response)
    if role.backend == "offline":
        writer.add_batched(row)
        return None
    return writer.add(row)


def _run_offline(
    role: RoleConfig,
    misses: Mapping[str, LLMRequest],
    cache: LLMCache,
    answered: Callable[[str], None],
    stage: str,
) -> dict[str, CallOutcome]:
    outcomes: dict[str, CallOutcome] = {}
    writer = AnswerWriter(cache)
    try:
        for key, request in misses.items():
            text = run_offline(request.task, request.variables, role.model)
            outcomes[key] = CallOutcome(text, 0, 0, 1)
            _store(writer, role, key, request, outcomes[key], stage)
            answered(key)
    finally:
        writer.flush()
    return outcomes


async def _run_live(
    role: RoleConfig,
    misses: Mapping[str, LLMRequest],
    cache: LLMCache,
    answered: Callable[[str], None],
    stage: str,
    budget: _ContentBudget,
) -> dict[str, CallOutcome]:
    limiter = RateLimiter(role.requests_per_minute, role.tokens_per_minute)
    writer = AnswerWriter(cache)
    with cache.checkpoints_in_background():
        return await _run_workers(role, misses, writer, answered, stage, budget, limiter)


async def _run_workers(
    role: RoleConfig,
    misses: Mapping[str, LLMRequest],
    writer: AnswerWriter,
    answered: Callable[[str], None],
    stage: str,
    budget: _ContentBudget,
    limiter: RateLimiter,
) -> dict[str, CallOutcome]:
    queue = list(misses.items())
    queue.reverse()  # pop() from the end keeps input order
    outcomes: dict[str, CallOutcome] = {}
    allowed = role.max_failed_share * len(misses)
    failed = 0
    refusals = Counter[str]()  # 4xx detail -> requests refused with it; kept until the run is over
    async with ChatPoster(role) as poster:

        async def worker() -> None:
            nonlocal failed
            while queue:
                key, request = queue.pop()
                structured = response_format(role, request.task, request.schema)
                outcome = await call_chat(poster, role, request.messages, limiter, structured)
                outcomes[key] = outcome
                answered(key)
                if outcome.kind == REFUSED:
                    refusals[outcome.detail] += 1
                else:
                    # Committed at once (with the answers of this loop turn): a kill -9 loses only the
                    # calls still in flight.
                    stored = _store(writer, role, key, request, outcome, stage)
                    if stored is not None:
                        await stored
                    failed += outcome.kind in ENDPOINT_KINDS
                if outcome.kind == CONTENT:
                    budget.seen[outcome.error] += 1
                    if budget.seen[outcome.error] > budget.allowed:
                        raise _TooManyFailed(outcome)
                repeated = sum(n for n in refusals.values() if n > 1)
                if failed + repeated > allowed:
                    # Stop now: a dead endpoint would otherwise cost every call its full retry budget.
                    raise _TooManyFailed(None)

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(role.max_concurrency, len(queue))):
                    group.create_task(worker())
        except BaseExceptionGroup as group_error:
            writer.flush()  # answers read before the stop are kept (their committing worker was cancelled)
            fatal = group_error.subgroup(LLMFatalError)  # a refused key says more than the failure count
            if fatal is not None:
                raise fatal.exceptions[0] from None
            stop = group_error.subgroup(_TooManyFailed)
            if stop is not None:
                first = stop.exceptions[0]
                if isinstance(first, _TooManyFailed) and first.outcome is not None:
                    reason, detail = first.outcome.error, first.outcome.detail
                    unfinished = len(misses) - len(outcomes)
                    message = _unusable(role, budget.seen[reason], budget.total, reason, detail, unfinished)
                    raise LLMFatalError(message) from None
                settled = settle_refusals(outcomes)
                stop_if_too_many_failed(role, settled.values(), len(misses), stopped_early=True)
            raise group_error.exceptions[0] from None
        except BaseException:  # cancelled from outside (Ctrl-C): keep what was read
            writer.flush()
            raise
    settled = settle_refusals(outcomes)
    for key, outcome in settled.items():
        if outcomes[key].kind == REFUSED:  # a content failure now (a SERVER one is not stored)
            _store(writer, role, key, misses[key], outcome, stage)
    return settled


class _TooManyFailed(Exception):
    """Raised in a worker to cancel the others; turned into LLMFatalError with the counts. ``outcome``:
    the content failure whose reason passed its share, or None for transport and server failures."""

    def __init__(self, outcome: CallOutcome | None) -> None:
        super().__init__()
        self.outcome = outcome
