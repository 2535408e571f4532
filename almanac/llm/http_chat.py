"""The hot path of live calls: a chat completion POSTed over one kept-alive aiohttp session.

The ``openai`` SDK's generic ``post`` builds an httpx request, merges headers, parses the URL and wraps
aiohttp in an httpx transport on every call: ~1 ms of CPU per call on this machine, which on 2 cores
capped 64 calls in flight at 100 ms latency near 0.8 of the ideal rate (issue 27). Here the URL and
headers are built once per run, the body is the same dict as JSON (orjson), and the reply is read as
text; :func:`almanac.llm.transport.call_chat` keeps every decision (retries, backoff, deadlines,
redaction, failure kinds). A non-2xx reply raises :class:`HTTPStatusFailure`, carrying what the SDK's
status errors carry (status, message, error code, headers), so the same rules apply to both. Batch and
embeddings calls, which are few, still go through the SDK.
"""

from __future__ import annotations

import codecs
import contextlib
import functools
import json
import os
import ssl
from collections.abc import Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from almanac.core.lazy import lazy_module

if TYPE_CHECKING:
    import aiohttp
    import orjson
    from yarl import URL
else:
    aiohttp = lazy_module("aiohttp")  # a stage that sends no request never loads it
    orjson = lazy_module("orjson")
from almanac.llm.config import RoleConfig
from almanac.llm.http1 import OriginPoster

OPENAI_API = "https://api.openai.com/v1"


@functools.cache
def tls_context() -> ssl.SSLContext:
    """Built once per process: loading the CA bundle costs ~0.1 s, far more than a local call."""
    cafile = os.environ.get("SSL_CERT_FILE")
    if not cafile:
        try:
            import certifi

            cafile = certifi.where()
        except ImportError:
            cafile = None
    return ssl.create_default_context(cafile=cafile)


class HTTPStatusFailure(Exception):
    """A reply with a non-2xx status, read as the SDK reads one (``Error code: 429 - <message>``)."""

    def __init__(self, status_code: int, body: str, headers: Mapping[str, str]) -> None:
        self.status_code = status_code
        self.headers = {key.lower(): value for key, value in headers.items()}
        self.code: str | None = None
        self.message = f"Error code: {status_code}"
        try:
            parsed: Any = json.loads(body)
        except ValueError:
            parsed = None
        error = parsed.get("error", parsed) if isinstance(parsed, dict) else None
        if isinstance(error, dict):
            said = error.get("message")
            if isinstance(said, str) and said:
                self.message += f" - {said}"
            code = error.get("code")
            self.code = code if isinstance(code, str) else None
        super().__init__(self.message)


class ChatPoster:
    """``async with ChatPoster(role) as poster: text = await poster.post(body)``; one per run."""

    def __init__(self, role: RoleConfig) -> None:
        self.api_key = role.api_key()
        self.url = f"{(role.base_url or OPENAI_API).rstrip('/')}/chat/completions"
        self._headers = {
            "Authorization": f"Bearer {self.api_key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
        }
        # One deadline for the whole attempt (connect, send, headers and body): a server dripping bytes
        # cannot hold a call past it. A single timer per call; per-read and per-connect timeouts of the
        # same length would add nothing (neither can fire after the total) but cost two timers per call.
        self._timeout = aiohttp.ClientTimeout(total=role.timeout_s)
        self._session: aiohttp.ClientSession | None = None
        self._proxy: URL | None = None
        self._proxy_auth: aiohttp.BasicAuth | None = None
        self._direct: OriginPoster | None = None

    async def __aenter__(self) -> ChatPoster:
        # HTTPS_PROXY / NO_PROXY apply as they do to the SDK's client, looked up once per run: aiohttp's
        # trust_env would look them (and ~/.netrc) up in a thread on every request.
        with contextlib.suppress(LookupError):
            from aiohttp.helpers import get_env_proxy_for_url
            from yarl import URL

            self._proxy, self._proxy_auth = get_env_proxy_for_url(URL(self.url))
        if self._proxy is None:  # the usual case: the small HTTP/1.1 client (http1), a third of the CPU
            tls = tls_context() if self.url.startswith("https:") else None
            self._direct = OriginPoster(self.url, self._headers, self._timeout.total or 0.0, tls)
            return self
        connector = aiohttp.TCPConnector(limit=0, ssl=tls_context())  # the workers bound concurrency
        self._session = aiohttp.ClientSession(connector=connector, timeout=self._timeout)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._direct is not None:
            self._direct.close()
            self._direct = None
        if self._session is not None:
            await self._session.close()
            self._session = None

    async def post(self, body: Mapping[str, Any]) -> str:
        """The reply's text for a 2xx status; :class:`HTTPStatusFailure` otherwise; aiohttp's errors
        (refused, dropped, timed out) as they come, for call_chat to name."""
        data = encode_body(body)
        if self._direct is not None:
            status, headers, raw = await self._direct.post(data)
            text = raw.decode(_charset(headers.get("content-type", "")), errors="replace")
            if not 200 <= status < 300:
                raise HTTPStatusFailure(status, text, headers)
            return text
        if self._session is None:
            raise RuntimeError("ChatPoster.post outside `async with`")
        async with self._session.post(
            self.url, data=data, headers=self._headers, proxy=self._proxy, proxy_auth=self._proxy_auth
        ) as response:
            raw = await response.read()
            text = raw.decode(response.charset or "utf-8", errors="replace")
            if not 200 <= response.status < 300:
                raise HTTPStatusFailure(response.status, text, response.headers)
            return text


def _charset(content_type: str) -> str:
    """The ``charset`` parameter of a Content-Type, UTF-8 when absent or unknown."""
    for parameter in content_type.split(";")[1:]:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip('"') or "utf-8"
            try:
                codecs.lookup(charset)
            except LookupError:
                return "utf-8"
            return charset
    return "utf-8"


def encode_body(body: Mapping[str, Any]) -> bytes:
    """The request as JSON: orjson (a tenth of ``json.dumps``'s CPU), or ``json`` for what orjson refuses
    (an integer beyond 64 bits, a key that is not a string, in a role's ``extra``)."""
    try:
        return orjson.dumps(body)
    except TypeError:  # orjson.JSONEncodeError
        return json.dumps(body).encode()
