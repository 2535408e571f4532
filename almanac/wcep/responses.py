"""Small pieces of the WCEP fetcher's HTTP handling: a capped, streamed body read and a decided fetch.

A body is read in chunks of :data:`CHUNK_BYTES` and given up past its cap, so no response (a page, an
error page, a robots.txt) is held beyond its cap plus one chunk, whatever its Content-Length says.
(urllib3 >= 2.6 also bounds what one decoded read inflates to, so a Content-Encoding bomb stays small.)
"""

from __future__ import annotations

from typing import Generic, TypeVar

import requests

CHUNK_BYTES = 64 * 1024
R = TypeVar("R")


class Refused(Generic[R]):
    """A fetch decided while following redirects; a context manager like the response it replaces."""

    def __init__(self, result: R) -> None:
        self.result = result

    def __enter__(self) -> R:
        return self.result

    def __exit__(self, *exc_info: object) -> None:
        return None


def read_capped(response: requests.Response, limit: int) -> tuple[bytes, bool]:
    """Up to ``limit`` bytes of the decoded body, streamed, and whether the body went on beyond them."""
    body = bytearray()
    for chunk in response.iter_content(CHUNK_BYTES):
        body += chunk
        if len(body) > limit:
            return bytes(body[:limit]), True
    return bytes(body), False
