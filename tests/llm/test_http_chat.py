"""The lean chat POST: status failures read as the SDK read them, answers committed per loop turn."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path

from almanac.llm.cache import CachedResponse, LLMCache
from almanac.llm.client import _AnswerWriter
from almanac.llm.http_chat import HTTPStatusFailure


def test_a_status_failure_carries_status_message_code_and_headers() -> None:
    body = json.dumps({"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}})
    failure = HTTPStatusFailure(429, body, {"Retry-After": "3", "X-Request-Id": "r1"})
    assert failure.status_code == 429
    assert failure.message == "Error code: 429 - You exceeded your current quota"
    assert failure.code == "insufficient_quota"
    assert failure.headers == {"retry-after": "3", "x-request-id": "r1"}
    bare = HTTPStatusFailure(502, "<html>Bad gateway</html>", {})
    assert (bare.message, bare.code) == ("Error code: 502", None)


def test_answers_read_in_one_loop_turn_share_one_commit(tmp_path: Path) -> None:
    with LLMCache(tmp_path / "cache.sqlite") as cache:
        commits: list[int] = []
        original = cache.put_many

        def counting(rows: Sequence[tuple[str, str, str, str, CachedResponse]]) -> None:
            commits.append(len(rows))
            original(rows)

        cache.put_many = counting  # type: ignore[method-assign]
        writer = _AnswerWriter(cache)

        async def answer(index: int, turns: int) -> None:
            for _ in range(turns):
                await asyncio.sleep(0)
            await writer.add((f"k{index}", "e", "t", "1", CachedResponse(f"a{index}", 1, 1)))

        async def main() -> None:
            # Five answers arrive in the same turn, then two more a few turns later: two commits.
            await asyncio.gather(*(answer(i, 0) for i in range(5)), answer(5, 5), answer(6, 5))

        asyncio.run(main())
        assert commits == [5, 2]
        assert sorted(cache.get_many([f"k{i}" for i in range(7)])) == [f"k{i}" for i in range(7)]
