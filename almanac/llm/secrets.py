"""Scrubbing of API keys from any text that may reach a log, an exception, a reject row or a file.

Servers echo keys back (OpenAI's 401 body quotes a prefix and suffix of the key it was given), and
HTTP libraries put headers into error messages, so every error text passes through :func:`redact`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_PATTERNS = (
    re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}"),  # OpenAI-style keys, also the masked "sk-ab***yz" echoes
    re.compile(r"(?i)\bbearer\s+[^\s'\",}]+"),
    re.compile(r"(?i)(api[_-]?key['\"]?\s*[:=]\s*['\"]?)[^\s'\",}]+"),
)
REDACTED = "[redacted]"


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: (m.group(1) if m.re.groups else "") + REDACTED, text)
    return text
