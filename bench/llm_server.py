"""The loopback chat server ``bench.llm`` measures the client against: cheap, exact, and timed by itself.

``python -m bench.llm_server --latency 0.1`` prints its URL (127.0.0.1, an ephemeral port) and serves
``POST .../chat/completions``: each request is answered ``latency`` seconds after its last byte was read,
by a timer on one asyncio event loop (no thread per connection, no GIL hand-over between 64 sleeping
threads), with a small completion naming the model asked. For every chat request it records when the
request was complete and when its reply was written (the monotonic clock); ``GET /stats`` returns
those spans since the previous ``GET /stats`` and forgets them. ``bench.llm`` takes the ideal from
them: what the server actually delivered, so neither a slow server nor a loaded machine is counted as
the client's overhead, and nothing the client adds is counted as the server's.

Why not the tests' server (tests/support/llm_server.py): it answers from a thread per connection
that sleeps ``latency`` with ``time.sleep``; at 64 in flight the threads wake in bursts and queue for
their process's GIL (a 5 ms switch interval) to parse, encode and send, so its replies came several
milliseconds late, which ``bench.llm`` charged to the client (docs/llm-client-cpu.md).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import cast

import orjson

MAX_REQUEST_BYTES = 1 << 20


class Spans:
    """(complete, replied) monotonic times of the chat requests answered since the last read."""

    def __init__(self) -> None:
        self.spans: list[tuple[float, float]] = []

    def take(self) -> list[tuple[float, float]]:
        spans, self.spans = self.spans, []
        return spans


class _Connection(asyncio.Protocol):
    """One connection; its requests are answered one at a time, in order (the clients send one at a time)."""

    def __init__(self, latency_s: float, spans: Spans) -> None:
        self.latency_s = latency_s
        self.spans = spans
        self.buffer = bytearray()
        self.busy = False  # a request is being answered; bytes after it wait
        self.transport: asyncio.Transport | None = None
        self.loop = asyncio.get_running_loop()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast("asyncio.Transport", transport)

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > MAX_REQUEST_BYTES:
            self._answer(413, b'{"error":{"message":"request too large"}}', close=True)
        elif not self.busy:
            self._next()

    def _next(self) -> None:
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(self.buffer[:end]).decode("latin-1")
        request_line, _, header_block = head.partition("\r\n")
        method, _, rest = request_line.partition(" ")
        path = rest.partition(" ")[0]
        length = 0
        for line in header_block.split("\r\n"):
            name, _, value = line.partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if len(self.buffer) < end + 4 + length:
            return
        body = bytes(self.buffer[end + 4 : end + 4 + length])
        del self.buffer[: end + 4 + length]
        if method == "POST" and path.endswith("/chat/completions"):
            self.busy = True
            complete = self.loop.time()
            self.loop.call_at(complete + self.latency_s, self._reply, body, complete)
        elif method == "GET" and path.endswith("/stats"):
            self._answer(200, orjson.dumps(self.spans.take()))
        else:
            self._answer(404, b'{"error":{"message":"no such route"}}')

    def _reply(self, body: bytes, complete: float) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        model = orjson.loads(body).get("model", "m")
        completion = {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 0,
            "model": model,
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
        }
        self._answer(200, orjson.dumps(completion))
        self.spans.spans.append((complete, self.loop.time()))

    def _answer(self, status: int, payload: bytes, close: bool = False) -> None:
        assert self.transport is not None
        head = b"HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % (
            status,
            len(payload),
        )
        self.transport.write(head + (b"Connection: close\r\n\r\n" if close else b"\r\n") + payload)
        if close:
            self.transport.close()
            return
        self.busy = False
        if self.buffer:
            self._next()

    def connection_lost(self, exc: Exception | None) -> None:
        self.transport = None


async def start(latency_s: float) -> tuple[asyncio.Server, str]:
    """The server listening on 127.0.0.1 (a port the OS chooses) and its base URL."""
    loop = asyncio.get_running_loop()
    spans = Spans()
    server = await loop.create_server(lambda: _Connection(latency_s, spans), "127.0.0.1", 0, backlog=1024)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1"


async def serve(latency_s: float) -> None:
    server, url = await start(latency_s)
    print(url, flush=True)  # the parent reads it
    async with server:
        await server.serve_forever()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--latency", type=float, default=0.1)
    args = parser.parse_args()
    asyncio.run(serve(args.latency))


if __name__ == "__main__":
    main()
