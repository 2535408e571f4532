"""Stable content-hash identifiers.

IDs must be identical across machines, processes and Python versions, so they come from a
cryptographic digest of explicit parts, never from ``hash()`` (salted per process) or randomness.
"""

from __future__ import annotations

import hashlib
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

_SEP = b"\x1f"  # unit separator: cannot appear in the text parts we hash, so ("ab","c") != ("a","bc")

# Query parameters that only track the reader; dropping them makes the same article share one URL.
_TRACKING_PREFIXES = ("utm_", "fbclid", "gclid", "mc_cid", "mc_eid", "ocid", "cmpid")


def content_id(*parts: str, length: int = 16) -> str:
    """Hex digest (``2 * length`` chars) of the ordered parts."""
    digest = hashlib.blake2b(digest_size=length)
    for index, part in enumerate(parts):
        if index:
            digest.update(_SEP)
        digest.update(part.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def canonical_url(url: str) -> str:
    """Lower-case scheme and host, drop fragment, default port and tracking parameters, sort the query."""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower() or "http"
    host = (parts.hostname or "").lower()
    if parts.port and not (
        (scheme == "http" and parts.port == 80) or (scheme == "https" and parts.port == 443)
    ):
        host = f"{host}:{parts.port}"
    query = sorted(
        (key, value)
        for key, value in parse_qsl(parts.query, keep_blank_values=True)
        if not key.lower().startswith(_TRACKING_PREFIXES)
    )
    path = parts.path or "/"
    return urlunsplit((scheme, host, path, urlencode(query), ""))


def source_domain(url: str) -> str:
    """The publisher's host without a leading ``www.``: the unit of source allowlists and splits."""
    host = (urlsplit(url.strip()).hostname or "").lower()
    return host.removeprefix("www.")
