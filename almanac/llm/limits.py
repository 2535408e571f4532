"""Client-side pacing: requests-per-minute and tokens-per-minute buckets, and retry backoff.

Servers enforce their limits with 429s; pacing below them keeps retries (and wasted latency) rare.
The buckets refill continuously and hold at most one second of allowance, so a fresh run does not
fire a minute's worth of requests in its first instant.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time


class TokenBucket:
    def __init__(self, per_minute: int) -> None:
        self.rate = per_minute / 60.0
        self.capacity = max(1.0, self.rate)
        self.level = self.capacity
        self.stamp = time.monotonic()
        self._lock = asyncio.Lock()

    def _refill(self) -> None:
        now = time.monotonic()
        self.level = min(self.capacity, self.level + (now - self.stamp) * self.rate)
        self.stamp = now

    async def take(self, amount: float) -> None:
        """Wait until ``amount`` is available; a request larger than the bucket waits for a full bucket."""
        async with self._lock:  # first come, first served
            need = min(amount, self.capacity)
            self._refill()
            while self.level < need:
                await asyncio.sleep((need - self.level) / self.rate)
                self._refill()
            self.level -= amount


class RateLimiter:
    """Both limits at once; a limit of 0 is no limit."""

    def __init__(self, requests_per_minute: int, tokens_per_minute: int) -> None:
        self.requests = TokenBucket(requests_per_minute) if requests_per_minute > 0 else None
        self.tokens = TokenBucket(tokens_per_minute) if tokens_per_minute > 0 else None

    async def acquire(self, estimated_tokens: int) -> None:
        if self.requests is not None:
            await self.requests.take(1)
        if self.tokens is not None:
            await self.tokens.take(estimated_tokens)


def estimate_tokens(prompt_chars: int, max_tokens: int) -> int:
    """Rough upper estimate for TPM pacing: ~4 characters per token plus the completion allowance."""
    return prompt_chars // 4 + max_tokens


def backoff_delay(
    attempt: int, base_s: float, max_s: float, retry_after_s: float | None, max_retry_after_s: float
) -> float:
    """Full-jitter exponential backoff; a server's Retry-After is a floor, never shortened by jitter,
    but never longer than ``max_retry_after_s`` either (a header asking for an hour must not hold a call)."""
    jittered = random.uniform(0.0, min(max_s, base_s * 2.0**attempt))
    if retry_after_s is None:
        return jittered
    return max(min(retry_after_s, max_retry_after_s), jittered)


def parse_retry_after(headers: dict[str, str]) -> float | None:
    """Seconds from ``retry-after-ms`` / ``retry-after`` (seconds or an HTTP date), if present."""
    lowered = {key.lower(): value for key, value in headers.items()}
    if "retry-after-ms" in lowered:
        try:
            return max(0.0, float(lowered["retry-after-ms"]) / 1000.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, parsed.timestamp() - time.time())
