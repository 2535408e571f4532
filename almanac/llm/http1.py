"""A small HTTP/1.1 client for the chat POST: kept-alive connections to one origin on asyncio protocols.

Why not aiohttp here: after the SDK was dropped from the chat path (http_chat), aiohttp's own request
machinery (request and response objects, the connector, a writer task, stream readers, per-read timers)
was about half of the client's CPU per call, more than Almanac's layer and the event loop together
(docs/llm-client-cpu.md). A chat call needs little of it: one POST with a known body, one reply that
ends at its Content-Length (or its last chunk, or the connection's end), to one origin. Here the request
head is built once per run, a reply is parsed in the protocol's ``data_received`` and handed to the
caller through one future, and the deadlines of the calls in flight are checked by one periodic sweep.

What it does not do, and who does: proxies (``HTTPS_PROXY``) go through aiohttp as before (http_chat
chooses); redirects are not followed (like the SDK, a 3xx is a status failure); retries and failure
kinds stay in transport.call_chat. Errors: :class:`ChatConnectionError` raised from the OS error (so
transport_cause finds "connection refused", a DNS or TLS failure underneath), :class:`ServerDisconnectedError`
for a connection that ended before a whole reply, :class:`TimeoutError` at the deadline.
"""

from __future__ import annotations

import asyncio
import ssl
import zlib
from collections.abc import Mapping
from typing import cast
from urllib.parse import urlsplit


class ChatConnectionError(Exception):
    """The connection could not be made or used (raised from the OS error), or the reply was not HTTP."""


class ServerDisconnectedError(ChatConnectionError):
    """The server closed the connection (or reset it) before the reply was complete."""


class MalformedReplyError(ChatConnectionError):
    """The bytes the server sent are not an HTTP/1.x reply."""


class ReplyTooLargeError(ChatConnectionError):
    """The reply (as sent, or once decompressed) is over MAX_REPLY_BYTES."""


MAX_SWEEP_S = 1.0
# A chat reply is a few kB to a few MB of JSON; a server sending more is broken or hostile, and the bytes
# are held in memory until the reply is complete, so they are capped (also after decompression).
MAX_REPLY_BYTES = 64 * 1024 * 1024
SWEEP_SHARE = 0.25
Reply = tuple[int, dict[str, str], bytes]  # status, headers (names lowercased), body (decoded if compressed)


class _Connection(asyncio.Protocol):
    """One TCP (or TLS) connection; at most one request in flight on it."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.open = False
        self.buffer = bytearray()
        self.waiter: asyncio.Future[tuple[Reply, bool]] | None = None
        self.head: tuple[str, int, dict[str, str]] | None = None
        self.head_scanned = 0  # the buffer before this offset holds no end of head: not searched again
        self.chunked: _ChunkedBody | None = None
        self.received = 0  # bytes of this reply so far, as sent (head included)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport (uvloop's is not a subclass of asyncio.Transport, hence no isinstance check).
        self.transport = cast("asyncio.Transport", transport)
        self.open = True

    def expect(self, waiter: asyncio.Future[tuple[Reply, bool]]) -> None:
        self.waiter, self.head, self.head_scanned, self.chunked, self.received = waiter, None, 0, None, 0
        self.buffer.clear()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        self.received += len(data)
        if self.waiter is None:  # bytes nobody asked for: this connection cannot be trusted again
            self.close()
        elif self.received > MAX_REPLY_BYTES:
            self._fail(ReplyTooLargeError(f"a reply over {MAX_REPLY_BYTES} bytes"))
        else:
            self._settle(eof=False)

    def eof_received(self) -> bool:
        self.open = False
        if self.waiter is not None:
            self._settle(eof=True)
        return False  # let the transport close itself

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        if self.waiter is not None and not self.waiter.done():
            error = ServerDisconnectedError("the server closed the connection before the reply was complete")
            error.__cause__ = exc
            self.waiter.set_exception(error)
        self.waiter = None

    def time_out(self) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(TimeoutError())
        self.waiter = None
        self.close(abort=True)

    def close(self, abort: bool = False) -> None:
        self.open = False
        if self.transport is not None:
            self.transport.abort() if abort else self.transport.close()

    def _fail(self, error: ChatConnectionError) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(error)
        self.waiter = None
        self.close(abort=True)

    def _settle(self, eof: bool) -> None:
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        try:
            done = self._reply(eof)
        except ChatConnectionError as error:
            self._fail(error)
            return
        if done is not None:
            self.waiter = None
            waiter.set_result(done)
        elif eof:
            waiter.set_exception(ServerDisconnectedError("the server ended the reply before it was complete"))
            self.waiter = None

    def _reply(self, eof: bool) -> tuple[Reply, bool] | None:
        """The whole reply and whether the connection may carry another request, or None for more bytes."""
        buffer = self.buffer
        while self.head is None:
            end = buffer.find(b"\r\n\r\n", self.head_scanned)
            if end < 0:
                self.head_scanned = max(0, len(buffer) - 3)
                return None
            head = _parse_head(bytes(buffer[:end]))
            del buffer[: end + 4]
            self.head_scanned = 0
            if not 100 <= head[1] < 200:  # an interim 1xx is followed by the real reply
                self.head = head
        version, status, headers = self.head
        reusable = "close" not in headers.get("connection", "").lower() and (
            version == "HTTP/1.1" or "keep-alive" in headers.get("connection", "").lower()
        )
        if status in (204, 304):
            body = b""
        elif "chunked" in headers.get("transfer-encoding", "").lower():
            if self.chunked is None:
                self.chunked = _ChunkedBody()
            chunked = self.chunked.read(buffer)
            if chunked is None:
                return None
            body = chunked
        elif "content-length" in headers:
            try:
                length = int(headers["content-length"])
            except ValueError:
                raise MalformedReplyError(f"Content-Length {headers['content-length']!r}") from None
            if len(buffer) < length:
                return None
            body = bytes(buffer[:length])
            del buffer[:length]
        else:  # the reply ends with the connection
            if not eof:
                return None
            body, reusable = bytes(buffer), False
            buffer.clear()
        if buffer:  # more than one reply's worth: do not reuse
            reusable = False
        return (status, headers, _decoded(body, headers.get("content-encoding", ""))), reusable and self.open


def _parse_head(raw: bytes) -> tuple[str, int, dict[str, str]]:
    status_line, _, rest = raw.decode("latin-1").partition("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or not parts[0].startswith("HTTP/1.") or not parts[1].isdigit():
        raise MalformedReplyError(f"not an HTTP/1.x status line: {status_line[:80]!r}")
    headers: dict[str, str] = {}
    for line in rest.split("\r\n") if rest else ():
        name, colon, value = line.partition(":")
        if not colon:
            raise MalformedReplyError(f"not a header line: {line[:80]!r}")
        key, value = name.strip().lower(), value.strip()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    return parts[0], int(parts[1]), headers


class _ChunkedBody:
    """A chunked body read as its bytes arrive. Each whole chunk (and each size or trailer line) is taken
    out of the buffer once, so a long reply read in many pieces costs its length, not reads x length."""

    def __init__(self) -> None:
        self.pieces: list[bytes] = []
        self.chunk_size: int | None = None  # inside a chunk: its data (then CRLF) not yet all here
        self.in_trailers = False
        self.scanned = 0  # the buffer before this offset holds no line end: not searched again

    def read(self, buffer: bytearray) -> bytes | None:
        """The whole body once its last chunk and trailers are in ``buffer`` (what they took is removed
        from it, what follows is left), or None while more bytes are needed."""
        while True:
            if self.chunk_size is not None:
                if len(buffer) < self.chunk_size + 2:
                    return None
                self.pieces.append(bytes(buffer[: self.chunk_size]))
                del buffer[: self.chunk_size + 2]
                self.chunk_size = None
                continue
            line_end = buffer.find(b"\r\n", self.scanned)
            if line_end < 0:
                self.scanned = max(0, len(buffer) - 1)
                return None
            line = bytes(buffer[:line_end])
            del buffer[: line_end + 2]
            self.scanned = 0
            if self.in_trailers:  # trailers, up to an empty line
                if not line:
                    return b"".join(self.pieces)
                continue
            digits = line.split(b";", 1)[0].strip()
            if not digits or not set(digits) <= _HEX_DIGITS:
                raise MalformedReplyError(f"a chunk size that is not hexadecimal: {line[:40]!r}")
            size = int(digits, 16)
            if size == 0:
                self.in_trailers = True
            else:
                self.chunk_size = size


_HEX_DIGITS = frozenset(b"0123456789abcdefABCDEF")


def _decoded(body: bytes, encoding: str) -> bytes:
    """We ask for no compression; a server that compresses anyway is still read."""
    encoding = encoding.strip().lower()
    if not body or encoding in ("", "identity"):
        return body
    try:
        if encoding == "gzip":
            return _inflate(body, 16 + zlib.MAX_WBITS)
        if encoding == "deflate":
            try:
                return _inflate(body, zlib.MAX_WBITS)
            except zlib.error:
                return _inflate(body, -zlib.MAX_WBITS)
    except zlib.error as error:
        raise MalformedReplyError(f"a {encoding} body that does not decompress: {error}") from None
    raise MalformedReplyError(f"a body in an encoding not asked for: {encoding}")


def _inflate(body: bytes, wbits: int) -> bytes:
    """``body`` decompressed, refusing one that would grow past MAX_REPLY_BYTES (a compression bomb)."""
    inflater = zlib.decompressobj(wbits)
    out = inflater.decompress(body, MAX_REPLY_BYTES)
    if inflater.unconsumed_tail:
        raise ReplyTooLargeError(f"a compressed reply that grows over {MAX_REPLY_BYTES} bytes")
    return out


class OriginPoster:
    """POSTs to one URL over kept-alive connections: ``await poster.post(body)`` -> Reply."""

    def __init__(
        self, url: str, headers: Mapping[str, str], timeout_s: float, tls: ssl.SSLContext | None
    ) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url}")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.tls = tls if parts.scheme == "https" else None
        self.timeout_s = timeout_s
        host = f"[{self.host}]" if ":" in self.host else self.host
        if parts.port is not None:
            host += f":{parts.port}"
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        lines = [f"POST {target} HTTP/1.1", f"Host: {host}", *(f"{k}: {v}" for k, v in headers.items())]
        self._head = ("\r\n".join(lines) + "\r\nContent-Length: ").encode("latin-1")
        self._idle: list[_Connection] = []
        # Deadlines: calls in flight -> their deadline, checked by one sweep every SWEEP_SHARE of the
        # timeout (at most MAX_SWEEP_S) instead of a timer armed and cancelled per call, whose heap
        # pushes, pops and comparisons were a twelfth of the client's CPU; so a call is cut at most a
        # quarter of its timeout (one second) after its deadline.
        self._deadlines: dict[_Connection, float] = {}
        self._sweep_s = min(MAX_SWEEP_S, timeout_s * SWEEP_SHARE)
        self._sweeper: asyncio.TimerHandle | None = None

    async def post(self, body: bytes) -> Reply:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        connection = await self._connection(deadline)
        waiter: asyncio.Future[tuple[Reply, bool]] = loop.create_future()
        connection.expect(waiter)
        self._deadlines[connection] = deadline
        if self._sweeper is None:
            self._sweeper = loop.call_later(self._sweep_s, self._sweep)
        try:
            assert connection.transport is not None
            connection.transport.write(b"%s%d\r\n\r\n%s" % (self._head, len(body), body))
            reply, reusable = await waiter
        except BaseException:  # failed, timed out or cancelled: the connection's state is unknown
            connection.close(abort=True)
            raise
        finally:
            del self._deadlines[connection]
        if reusable:
            self._idle.append(connection)
        else:
            connection.close()
        return reply

    def _sweep(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        for connection, deadline in list(self._deadlines.items()):
            if deadline <= now:
                connection.time_out()
        self._sweeper = loop.call_later(self._sweep_s, self._sweep) if self._deadlines else None

    async def _connection(self, deadline: float) -> _Connection:
        while self._idle:
            connection = self._idle.pop()
            if connection.open:
                return connection
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout_at(deadline):
                hostname = self.host if self.tls else None
                _, connection = await loop.create_connection(
                    _Connection, self.host, self.port, ssl=self.tls, server_hostname=hostname
                )
        except OSError as error:  # refused, DNS, TLS (ssl.SSLError is an OSError), unreachable
            raise ChatConnectionError(f"cannot connect to {self.host}:{self.port}: {error}") from error
        return connection

    def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        for connection in self._idle:
            connection.close()
        self._idle.clear()
