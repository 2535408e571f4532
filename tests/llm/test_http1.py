"""The small HTTP/1.1 client of the chat POST against a raw loopback server that sends scripted bytes:
kept-alive connections, chunked, compressed and close-delimited replies, and each way a reply can fail."""

from __future__ import annotations

import asyncio
import gzip
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest

from almanac.llm import http1
from almanac.llm.config import RoleConfig
from almanac.llm.http1 import ChatConnectionError, MalformedReplyError, OriginPoster, ServerDisconnectedError
from almanac.llm.http_chat import ChatPoster
from almanac.llm.transport import transport_cause

OK = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"


@dataclass
class RawServer:
    """Answers the n-th request (over all connections) with ``replies[n]``; ``None`` closes at once."""

    replies: list[bytes | None]
    close_after_reply: bool = False
    requests: list[bytes] = field(default_factory=list)
    connections: int = 0
    url: str = ""

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                self.requests.append(head + await reader.readexactly(length))
                reply = self.replies[len(self.requests) - 1]
                if reply is None:
                    break
                writer.write(reply)
                await writer.drain()
                if self.close_after_reply:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client went away, or the test's loop is closing
        finally:
            writer.close()


@asynccontextmanager
async def raw_server(replies: list[bytes | None], close_after_reply: bool) -> AsyncIterator[RawServer]:
    server = RawServer(replies, close_after_reply)
    listening = await asyncio.start_server(server.handle, "127.0.0.1", 0)
    server.url = f"http://127.0.0.1:{listening.sockets[0].getsockname()[1]}/v1/chat/completions"
    try:
        yield server
    finally:
        listening.close()
        await listening.wait_closed()


def posting(
    replies: list[bytes | None], calls: int, timeout_s: float = 5.0, close_after_reply: bool = False
) -> tuple[list[object], RawServer]:
    """Post ``calls`` bodies one after another; each result is a reply tuple or the exception raised."""

    async def main() -> tuple[list[object], RawServer]:
        async with raw_server(replies, close_after_reply) as server:
            poster = OriginPoster(server.url, {"Authorization": "Bearer k"}, timeout_s, None)
            results: list[object] = []
            for index in range(calls):
                try:
                    results.append(await poster.post(b'{"n":%d}' % index))
                except (ChatConnectionError, TimeoutError) as error:
                    results.append(error)
            poster.close()
            return results, server

    return asyncio.run(main())


def test_one_kept_alive_connection_carries_every_call_and_the_request_is_what_was_asked() -> None:
    results, server = posting([OK] * 4, 4)
    assert results == [(200, {"content-type": "application/json", "content-length": "2"}, b"{}")] * 4
    assert server.connections == 1
    port = server.url.split(":")[2].split("/")[0]
    assert server.requests[2] == (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:" + port.encode() + b"\r\n"
        b"Authorization: Bearer k\r\nContent-Length: 7\r\n\r\n"
        b'{"n":2}'
    )


def test_chunked_after_an_interim_reply_and_gzip_bodies_are_read_whole() -> None:
    chunked = (
        b"HTTP/1.1 100 Continue\r\n\r\n"
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b"5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n"
    )
    packed = gzip.compress(b'{"answer": 42}')
    compressed = (
        b"HTTP/1.1 429 Too Many\r\nContent-Encoding: gzip\r\nRetry-After: 3\r\nContent-Length: %d\r\n\r\n%s"
        % (
            len(packed),
            packed,
        )
    )
    results, server = posting([chunked, compressed], 2)
    assert results[0] == (200, {"transfer-encoding": "chunked"}, b"hello, world")
    reply = results[1]
    assert isinstance(reply, tuple) and (reply[0], reply[1]["retry-after"], reply[2]) == (
        429,
        "3",
        b'{"answer": 42}',
    )
    assert server.connections == 1


def test_a_reply_ending_with_its_connection_or_saying_close_is_not_reused() -> None:
    until_close = b"HTTP/1.1 200 OK\r\n\r\nthe whole rest"
    results, server = posting([until_close, until_close], 2, close_after_reply=True)
    assert [result[2] for result in results] == [b"the whole rest"] * 2  # type: ignore[index]
    assert server.connections == 2
    says_close = b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}"
    results, server = posting([says_close, OK], 2)
    assert [result[0] for result in results] == [200, 200] and server.connections == 2  # type: ignore[index]


def test_a_connection_dropped_mid_reply_is_named_as_dropped_and_the_next_call_reconnects() -> None:
    cut = b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial'
    results, _ = posting([cut, OK], 2, close_after_reply=True)
    assert isinstance(results[0], ServerDisconnectedError)
    assert transport_cause(results[0], 5.0) == "connection dropped by the server"
    assert results[1] == (200, {"content-type": "application/json", "content-length": "2"}, b"{}")
    dropped, _ = posting([None], 1)  # closed without a byte of reply
    assert isinstance(dropped[0], ServerDisconnectedError)


def test_bytes_that_are_not_http_are_a_malformed_reply() -> None:
    results, _ = posting([b"SSH-2.0-OpenSSH_9.6\r\n\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n"], 2)
    assert isinstance(results[0], MalformedReplyError) and "status line" in str(results[0])
    assert isinstance(results[1], MalformedReplyError) and "Content-Length" in str(results[1])


def test_a_server_that_never_answers_is_cut_at_the_deadline() -> None:
    async def main() -> tuple[object, float]:
        async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            await reader.read(1 << 16)
            await asyncio.sleep(30)

        listening = await asyncio.start_server(silent, "127.0.0.1", 0)
        port = listening.sockets[0].getsockname()[1]
        poster = OriginPoster(f"http://127.0.0.1:{port}/v1/chat/completions", {}, 0.4, None)
        started = asyncio.get_running_loop().time()
        try:
            await poster.post(b"{}")
        except TimeoutError as error:
            caught: object = error
        elapsed = asyncio.get_running_loop().time() - started
        poster.close()
        listening.close()
        return caught, elapsed

    caught, elapsed = asyncio.run(main())
    assert isinstance(caught, TimeoutError)
    assert 0.4 <= elapsed < 0.4 * 1.25 + 0.5  # at most one sweep (a quarter of the timeout) late, plus load


def test_a_refused_connection_carries_the_os_error_underneath() -> None:
    async def main() -> BaseException:
        listening = await asyncio.start_server(lambda r, w: None, "127.0.0.1", 0)
        port = listening.sockets[0].getsockname()[1]
        listening.close()
        await listening.wait_closed()  # the port is now closed
        poster = OriginPoster(f"http://127.0.0.1:{port}/v1", {}, 2.0, None)
        with pytest.raises(ChatConnectionError) as caught:
            await poster.post(b"{}")
        return caught.value

    error = asyncio.run(main())
    assert isinstance(error.__cause__, ConnectionRefusedError)
    assert transport_cause(error, 2.0) == "connection refused"


@pytest.mark.parametrize(("proxy", "direct"), [("", True), ("http://127.0.0.1:9", False)])
def test_a_configured_proxy_keeps_the_aiohttp_path(
    monkeypatch: pytest.MonkeyPatch, proxy: str, direct: bool
) -> None:
    for name in (
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "NO_PROXY",
        "no_proxy",
        "ALL_PROXY",
    ):
        monkeypatch.delenv(name, raising=False)
    if proxy:
        monkeypatch.setenv("HTTP_PROXY", proxy)
    role = RoleConfig(backend="openai", model="m", base_url="http://example.invalid/v1", name="g")

    async def main() -> tuple[bool, bool]:
        async with ChatPoster(role) as poster:
            return poster._direct is not None, poster._session is not None

    assert asyncio.run(main()) == (direct, not direct)


def test_a_reply_or_a_compressed_body_over_the_cap_is_refused_not_held(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(http1, "MAX_REPLY_BYTES", 1000)
    sent_large = b"HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + b"x" * 5000
    bomb = gzip.compress(b"0" * 100_000)  # ~150 bytes on the wire, 100 kB once inflated
    inflates_large = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s" % (
        len(bomb),
        bomb,
    )
    small = gzip.compress(b"0" * 900)
    inflates_under = b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n%s" % (
        len(small),
        small,
    )
    results, _ = posting([sent_large, inflates_large, inflates_under], 3)
    assert isinstance(results[0], http1.ReplyTooLargeError) and "over 1000 bytes" in str(results[0])
    assert isinstance(results[1], http1.ReplyTooLargeError) and "grows over 1000" in str(results[1])
    assert isinstance(results[2], tuple) and results[2][2] == b"0" * 900


class _FakeTransport:
    def close(self) -> None:
        pass

    def abort(self) -> None:
        pass


def _fed(pieces: list[bytes]) -> tuple[object, list[int]]:
    """Feed a reply to one connection in ``pieces`` (one data_received each): what the caller gets (the
    reply tuple or the exception) and the buffer's size after each piece."""

    async def main() -> tuple[object, list[int]]:
        connection = http1._Connection()
        connection.connection_made(_FakeTransport())  # type: ignore[arg-type]
        waiter: asyncio.Future[tuple[http1.Reply, bool]] = asyncio.get_running_loop().create_future()
        connection.expect(waiter)
        held = []
        for piece in pieces:
            connection.data_received(piece)
            held.append(len(connection.buffer))
            if waiter.done():
                break
        try:
            return (await waiter)[0], held
        except http1.ChatConnectionError as error:
            return error, held

    return asyncio.run(main())


CHUNKED_HEAD = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"


def test_a_chunked_reply_fed_a_byte_at_a_time_is_read_whole_with_extensions_and_trailers() -> None:
    body = b"a\r\n0123456789\r\n3;name=v\r\n\r\nx\r\n0\r\nX-Sum: 1\r\nX-More: 2\r\n\r\n"
    wire = CHUNKED_HEAD + body
    reply, _ = _fed([wire[i : i + 1] for i in range(len(wire))])
    assert reply == (200, {"transfer-encoding": "chunked"}, b"0123456789\r\nx")


def test_chunks_already_read_leave_the_buffer_so_a_long_reply_costs_its_length_not_reads_x_length() -> None:
    # 20,000 chunks of 10 bytes, one read each: rescanning the buffer from its start on every read (as
    # before) walks ~2e8 chunk headers; taking each chunk out once read walks 20,000.
    chunks = [b"a\r\n%010d\r\n" % n for n in range(20_000)]
    started = time.process_time()
    reply, held = _fed([CHUNKED_HEAD, *chunks, b"0\r\n\r\n"])
    assert time.process_time() - started < 5.0  # ~0.1 s linear; minutes if quadratic
    assert reply == (200, {"transfer-encoding": "chunked"}, b"".join(b"%010d" % n for n in range(20_000)))
    assert max(held[1:]) == 0  # each whole chunk is taken out as soon as it is in


def test_chunk_sizes_that_are_not_plain_hexadecimal_are_malformed_and_the_cap_counts_every_chunk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for size in (b"-5", b"1_0", b"+a", b"", b"zz"):
        reply, _ = _fed([CHUNKED_HEAD + size + b"\r\nhello\r\n0\r\n\r\n"])
        assert isinstance(reply, MalformedReplyError), size
    monkeypatch.setattr(http1, "MAX_REPLY_BYTES", 1000)
    reply, _ = _fed([CHUNKED_HEAD, *([b"64\r\n" + b"y" * 100 + b"\r\n"] * 20), b"0\r\n\r\n"])
    assert isinstance(reply, http1.ReplyTooLargeError)
