"""bench.llm's loopback server answers after its latency and logs what it delivered; the ideal is read
from that log."""

from __future__ import annotations

import asyncio
import json
import time

from almanac.llm.http1 import OriginPoster, Reply
from bench.llm import ideal_wall_s
from bench.llm_server import start


def test_replies_come_after_the_latency_and_each_is_logged_once() -> None:
    async def main() -> tuple[list[Reply], float, list[list[float]], list[list[float]]]:
        server, url = await start(0.05)
        poster = OriginPoster(f"{url}/chat/completions", {"Content-Type": "application/json"}, 5.0, None)
        started = time.monotonic()
        replies = await asyncio.gather(*(poster.post(b'{"model": "m%d"}' % i) for i in range(3)))
        elapsed = time.monotonic() - started
        logs = []
        for _ in range(2):  # the second read finds the log emptied by the first
            reader, writer = await asyncio.open_connection("127.0.0.1", server.sockets[0].getsockname()[1])
            writer.write(b"GET /v1/stats HTTP/1.1\r\nHost: x\r\n\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0])
            logs.append(json.loads(await reader.readexactly(length)))
            writer.close()
        poster.close()
        server.close()
        await server.wait_closed()
        return list(replies), elapsed, logs[0], logs[1]

    replies, elapsed, spans, after = asyncio.run(main())
    assert [json.loads(body)["model"] for _, _, body in replies] == ["m0", "m1", "m2"]
    assert [status for status, _, _ in replies] == [200] * 3
    assert 0.05 <= elapsed < 1.0  # three at once: one latency, not three
    assert len(spans) == 3 and after == []
    assert all(0.05 <= replied - complete < 1.0 for complete, replied in spans)


def test_the_ideal_is_every_slot_busy_with_the_latencies_the_server_delivered() -> None:
    # Four calls of 0.1, 0.1, 0.3 and 0.1 s over two slots: 0.6 s of calls, 0.3 s with both slots busy.
    spans = [(0.0, 0.1), (0.0, 0.1), (0.1, 0.4), (0.1, 0.2)]
    assert abs(ideal_wall_s(spans, 2) - 0.3) < 1e-9
