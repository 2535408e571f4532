"""Embeddings through the same layer as chat: OpenAI-compatible ``/v1/embeddings``, cached and accounted.

Each text's vector is cached under a key over the role's endpoint, its ``extra`` body fields and the text
(task ``embeddings`` in the same SQLite cache as chat answers, the vector as JSON), so a rerun makes no
call. Misses go in batches of ``BATCH_INPUTS`` with the chat client's retry rules: 408/409/429/5xx,
timeouts and dropped connections are retried with backoff; a refused key, an unknown model or a spent
quota stops at once. An embedding that still fails after its retries stops the run with
:class:`LLMFatalError` (one line naming the cause): a search index missing some vectors would rank
silently worse, so there is no partial result. The offline backend has no embeddings: roles that search
offline use BM25 alone (almanac.futuresim).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from almanac.core.lazy import lazy_module
from almanac.core.progress import Bar, progress
from almanac.core.rejects import StageLedger
from almanac.llm.accounting import METRICS_KEY, add_metric, cost_usd
from almanac.llm.cache import CachedResponse, LLMCache, cache_key
from almanac.llm.config import LLMConfigError, RoleConfig
from almanac.llm.limits import RateLimiter, backoff_delay, parse_retry_after
from almanac.llm.secrets import redact
from almanac.llm.transport import _RETRY_STATUS, LLMFatalError, make_client, raise_if_fatal, transport_cause

if TYPE_CHECKING:
    import openai
else:
    openai = lazy_module("openai")

TASK = "embeddings"
VERSION = "v1"  # of the request shape; part of the cache row, like a prompt version
BATCH_INPUTS = 64
Vector = tuple[float, ...]


def embedding_key(role: RoleConfig, text: str) -> str:
    return cache_key({"endpoint": role.endpoint, "task": TASK, "extra": dict(role.extra), "input": text})


def run_embeddings(
    role: RoleConfig, texts: Sequence[str], cache: LLMCache, ledger: StageLedger | None = None
) -> list[Vector]:
    """One vector per text, in order: from the cache, else from the role's ``/v1/embeddings``."""
    if role.backend == "offline":
        raise LLMConfigError(
            f"llm role {role.name!r}: embeddings need an OpenAI-compatible endpoint (backend: openai)"
        )
    keys = [embedding_key(role, text) for text in texts]
    hits = cache.get_many(keys)
    misses = dict.fromkeys(key for key in keys if key not in hits)  # distinct, in first-seen order
    text_of = dict(zip(keys, texts, strict=True))
    calls = 0
    if misses:
        batches = [list(misses)[i : i + BATCH_INPUTS] for i in range(0, len(misses), BATCH_INPUTS)]
        # The bar counts texts; those the cache answers are done before the first call.
        bar: Bar[None] = progress(
            desc=f"llm {role.name}", unit="text", total=len(keys), initial=len(keys) - len(misses)
        )
        try:
            texts_by_batch = [[text_of[key] for key in batch] for batch in batches]
            answers = asyncio.run(_embed_batches(role, texts_by_batch, bar))
        finally:
            bar.close()
        calls = len(batches)
        for batch, (vectors, tokens) in zip(batches, answers, strict=True):
            shares = _split_tokens(tokens, len(batch))
            for key, vector, share in zip(batch, vectors, shares, strict=True):
                response = CachedResponse(json.dumps(vector), share, 0)
                cache.put(key, role.endpoint, TASK, VERSION, response)
                hits[key] = response
    if ledger is not None:
        _account(ledger, role, [hits[key] for key in keys], len(keys) - len(misses), len(misses), calls)
    return [tuple(float(value) for value in json.loads(hits[key].text)) for key in keys]


def _split_tokens(total: int, parts: int) -> list[int]:
    """The batch's prompt tokens shared among its inputs (the first ones take the remainder)."""
    base, extra = divmod(total, parts)
    return [base + (1 if index < extra else 0) for index in range(parts)]


def _account(
    ledger: StageLedger,
    role: RoleConfig,
    answers: Sequence[CachedResponse],
    hits: int,
    misses: int,
    calls: int,
) -> None:
    """As chat accounting: tracked counts describe the vectors used; this run's calls go to run counts."""
    name = role.name or role.model
    tokens = sum(answer.prompt_tokens for answer in answers)
    add_metric(ledger, f"{name}.requests", len(answers))
    add_metric(ledger, f"{name}.prompt_tokens", tokens)
    add_metric(ledger, f"{name}.cost_usd", cost_usd(role, tokens, 0))
    ledger.add_run_count(f"{METRICS_KEY}.{name}.cache_hits", hits)
    ledger.add_run_count(f"{METRICS_KEY}.{name}.cache_misses", misses)
    ledger.add_run_count(f"{METRICS_KEY}.{name}.calls", calls)


async def _embed_batches(
    role: RoleConfig, batches: Sequence[list[str]], bar: Bar[None]
) -> list[tuple[list[list[float]], int]]:
    limiter = RateLimiter(role.requests_per_minute, role.tokens_per_minute)
    semaphore = asyncio.Semaphore(role.max_concurrency)
    async with make_client(role) as client:

        async def one(texts: list[str]) -> tuple[list[list[float]], int]:
            async with semaphore:
                answer = await _call(client, role, texts, limiter)
            bar.update(len(texts))
            return answer

        return list(await asyncio.gather(*(one(texts) for texts in batches)))


async def _call(
    client: openai.AsyncOpenAI, role: RoleConfig, texts: list[str], limiter: RateLimiter
) -> tuple[list[list[float]], int]:
    body: dict[str, Any] = {"model": role.model, "input": texts, **role.extra}
    secrets = (client.api_key,)
    detail = ""
    for attempt in range(role.max_retries + 1):
        await limiter.acquire(sum(len(text) for text in texts) // 4)
        retry_after: float | None = None
        try:
            raw = await client.post("/embeddings", cast_to=str, body=body)
        except openai.APIStatusError as error:
            detail = redact(f"HTTP {error.status_code}: {error.message}", secrets)
            raise_if_fatal(role, error, detail)
            if error.status_code not in _RETRY_STATUS and error.status_code < 500:
                break  # this request is refused as it is: asking again gives the same
            retry_after = parse_retry_after(dict(error.response.headers))
        except (openai.APITimeoutError, openai.APIConnectionError) as error:
            detail = redact(transport_cause(error, role.timeout_s), secrets)
        else:
            read = _read(raw, len(texts))
            if read is not None:
                return read
            detail = redact(f"unreadable embeddings body: {raw[:200]!r}", secrets)
        if attempt < role.max_retries:
            delay = backoff_delay(
                attempt, role.backoff_base_s, role.backoff_max_s, retry_after, role.max_retry_after_s
            )
            await asyncio.sleep(delay)
    raise LLMFatalError(f"llm role {role.name!r}: embeddings failed ({role.server}): {detail}")


def _read(raw: str, expected: int) -> tuple[list[list[float]], int] | None:
    try:
        data = json.loads(raw)
        rows = sorted(data["data"], key=lambda row: int(row["index"]))
        vectors = [[float(value) for value in row["embedding"]] for row in rows]
        tokens = int((data.get("usage") or {}).get("prompt_tokens") or 0)
    except (ValueError, KeyError, TypeError):
        return None
    if len(vectors) != expected or not all(vectors) or len({len(v) for v in vectors}) != 1:
        return None
    return vectors, tokens
