"""One chat-completion call against an OpenAI-compatible server, with retries.

The ``openai`` client's own retries are switched off so that this module alone decides: which
failures are worth retrying (429, 408, 409, 5xx, timeouts, dropped connections, unparseable
bodies), how long to wait (full-jitter exponential backoff, never less than the server's
Retry-After), and when to give up (``max_retries``), after which the item becomes a reject row.
Authentication, unknown-model and spent-quota errors are configuration mistakes and stop the stage.

A call that fails for good is one of three kinds. :data:`TRANSPORT` (network, timeout, rate limit,
server error) and :data:`SERVER` (an HTTP 200 whose body is an ``{"error": ...}``, a body that is not a
completion, the same 4xx refusal for different requests): the request may well succeed later, so it is
never cached and counts toward the role's ``max_failed_share``. :data:`CONTENT` (an answer cut at
``max_tokens``, all reasoning and no answer, empty, or a 4xx for this request alone): asking again
returns the same, so the cache keeps the reason. A 4xx comes back as :data:`REFUSED` until the client has
seen whether another request got the identical refusal (:func:`settle_refusals`).
The cause names what really happened: the SDK reports a refused connection or a failed DNS lookup
as "Request timed out", so :func:`transport_cause` reads the exception chain underneath.
``timeout_s`` is a deadline for the whole call, not for each read: a reply dripping a byte a second
is cut at the deadline.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import socket
import ssl
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from almanac.core.lazy import lazy_module
from almanac.core.stage import StageError
from almanac.llm.config import RoleConfig
from almanac.llm.http1 import ChatConnectionError
from almanac.llm.http_chat import ChatPoster, HTTPStatusFailure, tls_context
from almanac.llm.limits import RateLimiter, backoff_delay, estimate_tokens, parse_retry_after
from almanac.llm.prompts import Message
from almanac.llm.secrets import redact

if TYPE_CHECKING:
    import aiohttp
    import openai
    import orjson
else:
    aiohttp = lazy_module("aiohttp")
    openai = lazy_module("openai")
    orjson = lazy_module("orjson")

log = logging.getLogger(__name__)

_RETRY_STATUS = frozenset({408, 409, 429})
_FATAL_STATUS = {401: "unauthorized", 403: "forbidden", 404: "not found (unknown model or wrong base_url)"}
TRANSPORT = "transport"  # not cached, asked again next run, counts toward max_failed_share
SERVER = "server"  # the server answered, but not with a completion: like TRANSPORT
CONTENT = "content"  # this request's own answer is unusable: cached with its reason, not asked again
REFUSED = "refused"  # a 4xx: CONTENT when it is this request's alone, SERVER when others got the same
ENDPOINT_KINDS = frozenset({TRANSPORT, SERVER})
UNREADABLE = "llm_unreadable_response"  # JSON, but not a chat completion
NON_JSON = "llm_non_json_body"
ERROR_BODY = "llm_error_body"  # HTTP 200 with {"error": ...}
TRUNCATED = "llm_truncated"  # finish_reason "length": the answer was cut at max_tokens
REASONING_ONLY = "llm_reasoning_only"  # reasoning text, empty content: the budget went on thinking
EMPTY = "llm_empty_response"
MODEL_MISMATCH = "llm_model_mismatch"  # the reply names another model: the stage stops
RAISE_MAX_TOKENS = "raise max_tokens"


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
    kind: str = ""  # TRANSPORT, SERVER, CONTENT (or REFUSED until settled) when the call failed
    cause: str = ""  # short category of a transport failure, e.g. "connection refused" (summaries)
    retry_after_s: float = 0.0  # seconds waited because the server's Retry-After asked for it
    retry_after_capped: int = 0  # waits the server asked for beyond max_retry_after_s (cut to the cap)


def make_client(role: RoleConfig, builtin_retries: int = 0) -> openai.AsyncOpenAI:
    """The SDK client for batch and embeddings calls (chat calls go through :class:`ChatPoster`);
    ``builtin_retries``: batch management calls use the library's retries, embeddings none.

    The SDK's aiohttp transport (the ``openai[aiohttp]`` extra) costs less CPU per call than its
    default httpx one.
    """
    return openai.AsyncOpenAI(
        api_key=role.api_key(),
        base_url=role.base_url or None,
        timeout=role.timeout_s,
        max_retries=builtin_retries,
        http_client=openai.DefaultAioHttpClient(verify=tls_context(), timeout=role.timeout_s),
    )


def response_format(role: RoleConfig, task: str, schema: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The ``response_format`` asking for JSON under ``schema`` when the role wants structured outputs."""
    if not (role.structured_outputs and schema and role.backend != "offline"):  # as LLMRequest.structured
        return None
    name = re.sub(r"[^A-Za-z0-9_-]", "_", task)[:64] or "answer"
    return {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema), "strict": True}}


def request_body(
    role: RoleConfig, messages: tuple[Message, ...], structured: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON body of a chat completion (also the ``body`` of a batch line); ``structured`` is the
    request's ``response_format`` (:func:`response_format`), if any."""
    body: dict[str, Any] = {
        "model": role.model,
        "messages": [{"role": who, "content": content} for who, content in messages],
        "temperature": role.temperature,
    }
    # Reasoning models take max_completion_tokens instead; naming it in extra replaces max_tokens.
    if "max_completion_tokens" not in role.extra:
        body["max_tokens"] = role.max_tokens
    if structured:
        body["response_format"] = dict(structured)
    body.update(role.extra)
    return body


async def call_chat(
    poster: ChatPoster,
    role: RoleConfig,
    messages: tuple[Message, ...],
    limiter: RateLimiter,
    structured: Mapping[str, Any] | None = None,
) -> CallOutcome:
    body = request_body(role, messages, structured)
    estimate = estimate_tokens(sum(len(content) for _, content in messages), role.max_tokens)
    secrets = (poster.api_key,)
    detail, cause, reason = "", "", ""
    waited, capped = 0.0, 0
    for attempt in range(role.max_retries + 1):
        await limiter.acquire(estimate)
        retry_after: float | None = None
        try:
            # A plain POST (http_chat): the SDK's per-call request building costs more CPU than the
            # rest of the call. The session's total timeout (role.timeout_s) is the attempt's deadline.
            raw = await poster.post(body)
        except HTTPStatusFailure as error:
            status = error.status_code
            detail = redact(f"HTTP {status}: {error.message}", secrets)
            raise_if_fatal(role, error, detail)
            if status not in _RETRY_STATUS and status < 500:
                reason = f"llm_http_{status}"
                return CallOutcome("", 0, 0, attempt + 1, reason, detail, REFUSED, "", waited, capped)
            reason = "llm_retries_exhausted"
            cause = "HTTP 429 rate limited" if status == 429 else f"HTTP {status} server error"
            retry_after = parse_retry_after(error.headers)
        except (aiohttp.ClientError, ChatConnectionError, TimeoutError) as error:
            reason = "llm_retries_exhausted"
            cause = transport_cause(error, role.timeout_s)
            detail = redact(f"{cause}: {_innermost(error)}", secrets)
        else:
            read = _read_response(role, raw, attempt + 1, secrets)
            if isinstance(read, CallOutcome):
                return replace(read, retry_after_s=waited, retry_after_capped=capped) if waited else read
            reason, cause, detail = read
        if attempt < role.max_retries:
            delay = backoff_delay(
                attempt, role.backoff_base_s, role.backoff_max_s, retry_after, role.max_retry_after_s
            )
            if retry_after is not None:
                waited += delay
                if retry_after > role.max_retry_after_s:
                    capped += 1
                    log.warning(
                        "llm role %s: the server asked to wait %.0fs; waiting %.0fs (max_retry_after_s)",
                        role.name,
                        retry_after,
                        delay,
                    )
            log.info(
                "llm role %s: attempt %d failed (%s); retrying in %.2fs",
                role.name,
                attempt + 1,
                detail,
                delay,
            )
            await asyncio.sleep(delay)
    kind = TRANSPORT if reason == "llm_retries_exhausted" else SERVER
    return CallOutcome("", 0, 0, role.max_retries + 1, reason, detail, kind, cause, waited, capped)


def settle_refusals(outcomes: Mapping[str, CallOutcome]) -> dict[str, CallOutcome]:
    """A 4xx refusal is this request's own (CONTENT, cached) unless another request got the identical
    refusal: then the server refuses everything alike (a bad parameter, a misconfigured route) and it
    is a SERVER failure, never cached, asked again once the server is fixed."""
    seen = Counter(outcome.detail for outcome in outcomes.values() if outcome.kind == REFUSED)
    settled: dict[str, CallOutcome] = {}
    for key, outcome in outcomes.items():
        if outcome.kind == REFUSED:
            repeated = seen[outcome.detail] > 1
            cause = f"the same {outcome.detail[:120]} for different requests" if repeated else ""
            outcome = replace(outcome, kind=SERVER if repeated else CONTENT, cause=cause)
        settled[key] = outcome
    return settled


def raise_if_fatal(role: RoleConfig, error: openai.APIStatusError | HTTPStatusFailure, detail: str) -> None:
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


def _read_response(
    role: RoleConfig, raw: str, attempts: int, secrets: tuple[str, ...]
) -> CallOutcome | tuple[str, str, str]:
    """The completion as an outcome (an answer or a content failure), or ``(reason, cause, detail)`` of
    a server failure when the body is not a completion (worth another attempt, never cached)."""
    try:
        data = orjson.loads(raw)  # a tenth of json.loads's CPU
    except ValueError:  # orjson.JSONDecodeError; json also reads NaN, lone surrogate escapes, huge integers
        try:
            data = json.loads(raw)
        except ValueError:
            return NON_JSON, "replies are not JSON", redact(f"reply is not JSON: {raw[:200]!r}", secrets)
    if isinstance(data, dict) and data.get("error") and not data.get("choices"):
        said = redact(_error_text(data["error"]), secrets)
        what = "HTTP 200 with an error body"
        return ERROR_BODY, f"{what}: {said[:120]}", f"{what}: {said}"
    try:
        choice = data["choices"][0]
        message = choice["message"]
        text = message.get("content") or ""
        served = str(data.get("model") or "")
    except (KeyError, IndexError, TypeError, AttributeError):
        detail = redact(f"reply is not a chat completion: {raw[:200]!r}", secrets)
        return UNREADABLE, "replies are not chat completions", detail
    if not isinstance(text, str):
        return UNREADABLE, "replies are not chat completions", f"content is {type(text).__name__}"
    check_model(role, served)
    usage = data.get("usage") or {}
    prompt_tokens = int(usage.get("prompt_tokens") or 0)
    completion_tokens = int(usage.get("completion_tokens") or 0)
    failure = answer_failure(role, text, choice.get("finish_reason"), _reasoning(message))
    if failure is not None:
        # Deterministic sampling would return the same again, so this is final (and cached as a failure).
        reason, detail = failure
        return CallOutcome("", prompt_tokens, completion_tokens, attempts, reason, detail, CONTENT)
    return CallOutcome(text, prompt_tokens, completion_tokens, attempts)


def answer_failure(role: RoleConfig, text: str, finish: object, reasoning: str) -> tuple[str, str] | None:
    """``(reason, detail)`` when a completion holds no usable answer: all reasoning, cut, or empty."""
    if not text.strip() and reasoning.strip():
        return REASONING_ONLY, (
            f"reasoning ({len(reasoning)} chars) but no answer (finish_reason={finish}): the model spent "
            f"its max_tokens={role.max_tokens} thinking; {RAISE_MAX_TOKENS} or turn its thinking off"
        )
    if finish == "length":
        cut = f"answer cut at max_tokens={role.max_tokens} (finish_reason=length)"
        return TRUNCATED, f"{cut}; {RAISE_MAX_TOKENS}"
    if not text.strip():
        return EMPTY, f"empty answer (finish_reason={finish})"
    return None


def check_model(role: RoleConfig, served: str) -> None:
    """Stop when the reply comes from another model than the one asked: its answer is not the role's,
    and the cache (keyed by the model asked) must not file it under that name."""
    if not role.answers_as(served):
        raise LLMFatalError(model_mismatch(role, served))


def model_mismatch(role: RoleConfig, served: str) -> str:
    return (
        f"llm role {role.name!r}: asked {role.server} for model {role.model!r} but the reply came from "
        f"{served[:200]!r}; set model: {served[:200]!r}, or list it in the role's model_aliases if it is "
        "the same model"
    )


def _reasoning(message: Mapping[str, Any]) -> str:
    """Reasoning text where servers put it (vLLM/DeepSeek ``reasoning_content``, others ``reasoning``)."""
    for name in ("reasoning_content", "reasoning"):
        value = message.get(name)
        if isinstance(value, str) and value:
            return value
    return ""


def _error_text(error: object) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or json.dumps(error, sort_keys=True))[:500]
    return str(error)[:500]
