"""One line for every failure a user can cause, with every secret taken out.

:func:`describe` turns an exception into the line the ``almanac`` command and every stage print: a full
disk names the path being written, an unreachable server names its host, anything else gives its
message. :func:`redact` runs over every such line: the values of secret-looking environment variables
(``*_KEY``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*`` and any name passed to :func:`declare_secret_env`,
e.g. ``publish.hub_token_env``), user:password in URLs, token-like query parameters, ``Bearer`` headers
and well-known key shapes (``hf_...``, ``sk-...``). ``--debug`` or ``ALMANAC_DEBUG=1`` shows the
traceback instead (itself redacted by nothing: debugging output is for the user's own terminal).
"""

from __future__ import annotations

import errno
import os
import re
import socket
from collections.abc import Iterator

DEBUG_ENV = "ALMANAC_DEBUG"
MASK = "***"
MIN_SECRET_CHARS = 6  # shorter values ("1", "true") are settings, and masking them would garble messages

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH", re.IGNORECASE)
_USERINFO = re.compile(r"(?P<scheme>\b[a-z][a-z0-9+.-]*://)[^/\s@]+@", re.IGNORECASE)
_QUERY_SECRET = re.compile(
    r"(?P<name>[?&;][\w.-]*(?:token|key|secret|sig|signature|password|auth|credential)[\w.-]*=)[^&;\s#'\"]+",
    re.IGNORECASE,
)
_BEARER = re.compile(r"(?P<scheme>\b(?:Bearer|Basic|token)\s+)[A-Za-z0-9._~+/=-]{8,}", re.IGNORECASE)
_KEY_SHAPES = re.compile(r"\b(?:hf_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_-]{16,}|gh[pousr]_[A-Za-z0-9]{20,})")
_URL_HOST = re.compile(r"\b[a-z][a-z0-9+.-]*://(?:[^/\s@]+@)?(?P<host>\[[0-9a-f:]+\]|[^/\s:'\"?#]+)", re.I)
_HOST_FIELD = re.compile(r"host=['\"](?P<host>[^'\"]+)['\"]")

_declared: set[str] = set()


def declare_secret_env(name: str) -> None:
    """Treat the environment variable ``name`` as a secret in every message (its value, not its name)."""
    if name:
        _declared.add(name)


def secret_values() -> list[str]:
    """The values to mask, longest first (so a key that contains another is masked whole)."""
    values = {
        value
        for name, value in os.environ.items()
        if (name in _declared or _SECRET_NAME.search(name)) and len(value) >= MIN_SECRET_CHARS
    }
    return sorted(values, key=len, reverse=True)


def redact(text: str) -> str:
    """``text`` with every secret replaced by ``***``."""
    for value in secret_values():
        text = text.replace(value, MASK)
    text = _USERINFO.sub(lambda match: f"{match['scheme']}{MASK}@", text)
    text = _QUERY_SECRET.sub(lambda match: f"{match['name']}{MASK}", text)
    text = _BEARER.sub(lambda match: f"{match['scheme']}{MASK}", text)
    return _KEY_SHAPES.sub(MASK, text)


def debug_enabled(flag: bool = False) -> bool:
    """``--debug`` given, or ``ALMANAC_DEBUG`` set to anything but "", "0", "false" or "no"."""
    return flag or os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def one_line(text: str) -> str:
    return " ".join(text.split())


def describe(error: BaseException) -> str:
    """The one redacted line that says what went wrong (no traceback)."""
    return redact(one_line(_explain(error)))


def is_environment_failure(error: BaseException) -> bool:
    """A full disk or an unreachable server anywhere in ``error``'s chain: the user's to fix, not a bug."""
    chain = list(_chain(error))
    return any(_disk_full(item) or is_network_error(item) for item in chain)


def _disk_full(error: BaseException) -> bool:
    return isinstance(error, OSError) and (
        error.errno in (errno.ENOSPC, errno.EDQUOT) or "No space left on device" in str(error)
    )


def _explain(error: BaseException) -> str:
    chain = list(_chain(error))
    for item in chain:
        if isinstance(item, OSError) and _disk_full(item):
            what = "disk quota exceeded" if item.errno == errno.EDQUOT else "no space left on the device"
            path = item.filename or _filename_in(chain)
            return f"{what} writing {path}" if path else f"{what} (path not reported): {_message(error)}"
    if any(is_network_error(item) for item in chain):
        host = network_host(chain)
        cause = _message(chain[-1]) if len(chain) > 1 else _message(error)
        where = f"cannot reach {host}" if host else "network error"
        return f"{where}: {cause}" if cause else where
    return _message(error)


def is_network_error(error: BaseException) -> bool:
    """A failure to reach a server: DNS, refused or reset connections, timeouts, offline mode."""
    if isinstance(error, socket.gaierror | ConnectionError | TimeoutError | socket.timeout):
        return True
    # Client libraries' own kinds (httpx, httpcore, requests, urllib3, huggingface_hub), by name: their
    # modules are imported only by the code that uses them, never here.
    return any(
        kind.__name__ in _NETWORK_KINDS for kind in type(error).__mro__ if kind.__module__ != "builtins"
    )


_NETWORK_KINDS = frozenset(
    {
        "TransportError",
        "NetworkError",
        "ConnectError",
        "ConnectionError",
        "ConnectTimeout",
        "TimeoutException",
        "Timeout",
        "NewConnectionError",
        "MaxRetryError",
        "NameResolutionError",
        "OfflineModeIsEnabled",
        "URLError",
    }
)


def network_host(chain: list[BaseException]) -> str:
    """The host a network error was about: from the request it carries, else from a URL in a message."""
    for item in chain:
        request = getattr(item, "_request", None) or _safe_request(item)
        url = getattr(request, "url", None)
        host = getattr(url, "host", None) or (_URL_HOST.search(url) if isinstance(url, str) else None)
        if isinstance(host, str) and host:
            return host
        if isinstance(host, re.Match):
            return str(host["host"])
        pool_host = getattr(getattr(item, "pool", None), "host", None) or getattr(item, "host", None)
        if isinstance(pool_host, str) and pool_host:
            return pool_host
    for item in chain:
        text = str(item)
        match = _URL_HOST.search(text) or _HOST_FIELD.search(text)
        if match:
            return str(match["host"])
    return ""


def _safe_request(error: BaseException) -> object:
    try:  # httpx raises RuntimeError from .request when the error carries none
        return getattr(error, "request", None)
    except RuntimeError:
        return None


def _chain(error: BaseException) -> Iterator[BaseException]:
    """``error`` and its causes (``raise ... from`` and implicit context), each once, outermost first."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        # `raise ... from None` hides the context on purpose (e.g. a message already redacted and whole).
        current = current.__cause__ or (None if current.__suppress_context__ else current.__context__)


def _filename_in(chain: list[BaseException]) -> str:
    for item in chain:
        if isinstance(item, OSError) and item.filename:
            return str(item.filename)
    return ""


def _message(error: BaseException) -> str:
    if isinstance(error, KeyError) and error.args:
        return f"missing key {error.args[0]!r}"
    if isinstance(error, OSError) and error.strerror:
        where = f": {error.filename}" if error.filename else ""
        return f"{error.strerror}{where}"
    text = str(error)
    return text if text else type(error).__name__
