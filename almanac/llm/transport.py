"""One chat-completion call against an OpenAI-compatible server, with retries.

The ``openai`` client's own retries are switched off so that this module alone decides: which
failures are worth retrying (429, 408, 409, 5xx, timeouts, dropped connections, unparseable
bodies), how long to wait (full-jitter exponential backoff, never less than the server's
Retry-After), and when to give up (``max_retries``), after which the item becomes a reject row.
Authentication, unknown-model and spent-quota errors are configuration mistakes and stop the stage.

A call that fails for good is one of two kinds. :data:`TRANSPORT` (network, timeout, rate limit,
server error): the request may well succeed later, so it is never cached and counts toward the
role's ``max_failed_share``. :data:`CONTENT` (an answer that is unreadable after every retry, empty,
or refused with a 4xx for this request alone): asking again returns the same, so the cache keeps it.
The cause names what really happened: the SDK reports a refused connection or a failed DNS lookup
as "Request timed out", so :func:`transport_cause` reads the exception chain underneath.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import socket
import ssl
from dataclasses import dataclass
from typing import Any

import openai

from almanac.core.stage import StageError
from almanac.llm.config import RoleConfig
from almanac.llm.limits import RateLimiter, backoff_delay, estimate_tokens, parse_retry_after
from almanac.llm.prompts import Message
from almanac.llm.secrets import redact

log = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({408, 409, 429})
_FATAL_STATUS = {401: "unauthorized", 403: "forbidden", 404: "not found (unknown model or wrong base_url)"}
TRANSPORT = "transport"  # not cached, asked again next run, counts toward max_failed_share
CONTENT = "content"  # this request's own answer is unusable: cached with its reason, not asked again
UNREADABLE = "llm_unreadable_response"


class LLMFatalError(StageError):
    """The endpoint refuses every request (bad key, unknown model, spent quota, down): stop the stage."""


@dataclass(frozen=True)
class CallOutcome:
    text: str
    prompt_tokens: int
    completion_tokens: int
    attempts: int
    error: str = ""  # reject reason when the call failed for good
    detail: str = ""  # redacted description of the last failure
    kind: str = ""  # TRANSPORT or CONTENT when the call failed
    cause: str = ""  # short category of a transport failure, e.g. "connection refused" (summaries)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """Built once per process: loading the CA bundle costs ~0.1 s, far more than a local call."""
    cafile = os.environ.get("SSL_CERT_FILE")
    if not cafile:
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:
            cafile = None
    return ssl.create_default_context(cafile=cafile)


def make_client(role: RoleConfig, builtin_retries: int = 0) -> openai.AsyncOpenAI:
    """Chat calls retry in :func:`call_chat` (0 here); batch management calls use the library's retries.

    The SDK's aiohttp transport (the ``openai[aiohttp]`` extra) costs ~1.8 ms of CPU per call where
    the default httpx one costs ~2.9 ms: the difference between ~80% and ~90% of the ideal rate at
    32 calls in flight on two cores (bench/llm.py).
    """
    return openai.AsyncOpenAI(
        api_key=role.api_key(),
        base_url=role.base_url or None,
        timeout=role.timeout_s,
        max_retries=builtin_retries,
        http_client=openai.DefaultAioHttpClient(verify=_tls_context(), timeout=role.timeout_s),
    )


def request_body(role: RoleConfig, messages: tuple[Message, ...]) -> dict[str, Any]:
    """The JSON body of a chat completion (also the ``body`` of a batch line)."""
    body: dict[str, Any] = {
        "model": role.model,
        "messages": [{"role": who, "content": content} for who, content in messages],
        "temperature": role.temperature,
    }
    # Reasoning models take max_completion_tokens instead; naming it in extra replaces max_tokens.
    if "max_completion_tokens" not in role.extra:
        body["max_tokens"] = role.max_tokens
    body.update(role.extra)
    return body


async def call_chat(
    client: openai.AsyncOpenAI, role: RoleConfig, messages: tuple[Message, ...], limiter: RateLimiter
) -> CallOutcome:
    body = request_body(role, messages)
    estimate = estimate_tokens(sum(len(content) for _, content in messages), role.max_tokens)
    secrets = (client.api_key,)
    detail, cause = "", ""
    for attempt in range(role.max_retries + 1):
        await limiter.acquire(estimate)
        retry_after: float | None = None
        try:
            # The SDK's generic post (documented for custom endpoints) with our own JSON body and reading:
            # its typed create() spends ~2 ms of CPU per call converting parameters and models, which
            # caps a 2-core machine well below 32 calls in flight at 100 ms.
            raw = await client.post("/chat/completions", cast_to=str, body=body)
        except openai.APIStatusError as error:
            status = error.status_code
            detail = redact(f"HTTP {status}: {error.message}", secrets)
            raise_if_fatal(role, error, detail)
            if status not in _RETRY_STATUS and status < 500:
                return CallOutcome("", 0, 0, attempt + 1, f"llm_http_{status}", detail, CONTENT)
            cause = "HTTP 429 rate limited" if status == 429 else f"HTTP {status} server error"
            retry_after = parse_retry_after(dict(error.response.headers))
        except (openai.APITimeoutError, openai.APIConnectionError) as error:
            cause = transport_cause(error, role.timeout_s)
            detail = redact(f"{cause}: {_innermost(error)}", secrets)
        except (openai.APIResponseValidationError, json.JSONDecodeError) as error:
            cause = ""  # a garbled answer, not a transport problem
            detail = redact(f"{type(error).__name__}: {error}", secrets)
        else:
            outcome = _read_response(raw, attempt + 1, secrets)
            if outcome is not None:
                return outcome
            cause = ""
            detail = redact(f"unreadable completion body: {raw[:200]!r}", secrets)
        if attempt < role.max_retries:
            delay = backoff_delay(attempt, role.backoff_base_s, role.backoff_max_s, retry_after)
            log.info(
                "llm role %s: attempt %d failed (%s); retrying in %.2fs",
                role.name,
                attempt + 1,
                detail,
                delay,
            )
            await asyncio.sleep(delay)
    if not cause:  # the last attempt got an answer, just not a readable one: asking again will not help
        return CallOutcome("", 0, 0, role.max_retries + 1, UNREADABLE, detail, CONTENT)
    return CallOutcome("", 0, 0, role.max_retries + 1, "llm_retries_exhausted", detail, TRANSPORT, cause)


def raise_if_fatal(role: RoleConfig, error: openai.APIStatusError, detail: str) -> None:
    """A refused key, an unknown model or a spent quota fails every call alike: stop at the first one."""
    status = error.status_code
    quota = status == 429 and (error.code == "insufficient_quota" or "insufficient_quota" in error.message)
    if status not in _FATAL_STATUS and not quota:
        return
    what = "HTTP 429 quota exceeded" if quota else f"HTTP {status} {_FATAL_STATUS[status]}"
    hint = ""
    if status in (401, 403):
        hint = f"; check the key in ${role.api_key_env}" if role.api_key_env else "; the role sets no key"
    raise LLMFatalError(
        f"llm role {role.name!r} ({role.model} at {role.server}): {what}{hint} [{detail}]"
    ) from None


def transport_cause(error: BaseException, timeout_s: float) -> str:
    """What went wrong underneath the SDK's error, in words a user can act on."""
    chain = _chain(error)
    for link in chain:
        if isinstance(link, ConnectionRefusedError):
            return "connection refused"
        if isinstance(link, socket.gaierror):
            return f"DNS lookup failed ({link.strerror or link})"
        if isinstance(link, ssl.SSLError):
            return f"TLS error ({link.reason or type(link).__name__})"
    names = {cls.__name__ for link in chain for cls in type(link).__mro__}
    if names & {"ServerDisconnectedError", "RemoteProtocolError"} or any(
        isinstance(link, ConnectionResetError | BrokenPipeError) for link in chain
    ):
        return "connection dropped by the server"
    if any(isinstance(link, TimeoutError) for link in chain) or (
        isinstance(error, openai.APITimeoutError) and len(chain) == 1
    ):
        return f"timed out after {timeout_s:g} s"
    return f"connection failed ({type(_innermost(error)).__name__})"


def _chain(error: BaseException) -> list[BaseException]:
    links: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in links:
        links.append(current)
        current = current.__cause__ or current.__context__
    return links


def _innermost(error: BaseException) -> BaseException:
    return _chain(error)[-1]


def _read_response(raw: str, attempts: int, secrets: tuple[str, ...]) -> CallOutcome | None:
    """Read the completion JSON; None when it is garbled (worth another attempt)."""
    try:
        data = json.loads(raw)
        choice = data["choices"][0]
        text = choice["message"].get("content") or ""
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return None
    usage = data.get("usage") or {}
    prompt_tokens = int(usage.get("prompt_tokens") or 0)
    completion_tokens = int(usage.get("completion_tokens") or 0)
    if not text.strip():
        # Deterministic sampling would return the same nothing again, so this is final.
        reason = redact(f"empty answer (finish_reason={choice.get('finish_reason')})", secrets)
        return CallOutcome(
            "", prompt_tokens, completion_tokens, attempts, "llm_empty_response", reason, CONTENT
        )
    return CallOutcome(text, prompt_tokens, completion_tokens, attempts)
