"""The lean chat POST: status failures read as the SDK read them, answers committed in short batches."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

import pytest

from almanac.llm.answers import AnswerWriter
from almanac.llm.cache import CachedResponse, LLMCache
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


def counted_commits(cache: LLMCache, fail_first: int = 0) -> list[int]:
    """Rows per successful put_many call; the first ``fail_first`` calls raise as a locked database."""
    commits: list[int] = []
    original = cache.put_many
    calls = [0]

    def counting(rows: Sequence[tuple[str, str, str, str, CachedResponse]]) -> None:
        calls[0] += 1
        if calls[0] <= fail_first:
            raise sqlite3.OperationalError("database is locked")
        commits.append(len(rows))
        original(rows)

    cache.put_many = counting  # type: ignore[method-assign]
    return commits


def row(index: int) -> tuple[str, str, str, str, CachedResponse]:
    return (f"k{index}", "e", "t", "1", CachedResponse(f"a{index}", 1, 1))


def test_answers_read_in_one_loop_turn_share_one_commit(tmp_path: Path) -> None:
    with LLMCache(tmp_path / "cache.sqlite") as cache:
        commits = counted_commits(cache)
        writer = AnswerWriter(cache)

        async def answer(index: int, turns: int) -> None:
            for _ in range(turns):
                await asyncio.sleep(0)
            await writer.add(row(index))
            # No worker asks again before its answer is committed: a kill -9 cannot lose both.
            assert f"k{index}" in cache.get_many([f"k{index}"])

        async def main() -> None:
            # Five answers arrive in the same turn, then two more a few turns later: two commits.
            await asyncio.gather(*(answer(i, 0) for i in range(5)), answer(5, 5), answer(6, 5))

        asyncio.run(main())
        assert commits == [5, 2]
        assert sorted(cache.get_many([f"k{i}" for i in range(7)])) == [f"k{i}" for i in range(7)]


def test_every_worker_of_a_turn_goes_on_in_the_turn_its_answers_are_committed(tmp_path: Path) -> None:
    # The time from an answer to the next request is the wait for its commit: the workers whose answers
    # shared a transaction all go on in the loop turn that commits it, not one turn later.
    with LLMCache(tmp_path / "cache.sqlite") as cache:
        commits = counted_commits(cache)
        writer = AnswerWriter(cache)
        turn = 0
        went_on: list[int] = []

        async def ticker() -> None:
            nonlocal turn
            for _ in range(6):
                await asyncio.sleep(0)
                turn += 1

        async def answer(index: int) -> None:
            await writer.add(row(index))
            went_on.append(turn)

        async def main() -> None:
            await asyncio.gather(ticker(), *(answer(i) for i in range(5)))

        asyncio.run(main())
        assert commits == [5]
        assert went_on == [1] * 5


def test_offline_answers_commit_per_full_batch_and_at_the_end(tmp_path: Path) -> None:
    with LLMCache(tmp_path / "cache.sqlite") as cache:
        commits = counted_commits(cache)
        writer = AnswerWriter(cache, max_rows=3)
        for index in range(7):
            writer.add_batched(row(index))
        assert commits == [3, 3]  # the seventh waits for the end of the run
        writer.flush()
        assert commits == [3, 3, 1] and len(cache) == 7


def test_a_failed_live_commit_stops_every_worker_of_its_turn(tmp_path: Path) -> None:
    with LLMCache(tmp_path / "cache.sqlite") as cache:
        counted_commits(cache, fail_first=1)
        writer = AnswerWriter(cache)

        async def main() -> list[object]:
            return await asyncio.gather(*(writer.add(row(i)) for i in range(3)), return_exceptions=True)

        outcomes = asyncio.run(main())
        assert [type(outcome).__name__ for outcome in outcomes] == ["OperationalError"] * 3
        assert len(writer.pending) == 3 and len(cache) == 0  # kept for the run's last flush


def test_a_failed_commit_raises_and_keeps_its_rows_for_the_last_flush(tmp_path: Path) -> None:
    with LLMCache(tmp_path / "cache.sqlite") as cache:
        commits = counted_commits(cache, fail_first=1)
        writer = AnswerWriter(cache, max_rows=2)
        writer.add_batched(row(0))
        with pytest.raises(sqlite3.OperationalError, match="locked"):
            writer.add_batched(row(1))
        writer.flush()  # what the run does on its way out: the failed batch is tried again
        assert commits == [2] and sorted(cache.get_many(["k0", "k1"])) == ["k0", "k1"]


def test_during_a_live_run_a_thread_checkpoints_the_wal_not_the_committing_loop(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    with LLMCache(path) as cache:
        before = path.stat().st_size
        with cache.checkpoints_in_background(every_s=0.05):
            assert cache._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (0,)
            cache.put_many([row(i) for i in range(300)])
            assert path.stat().st_size == before  # the rows are in the WAL only: the commit copied nothing
            deadline = time.monotonic() + 10
            while path.stat().st_size == before and time.monotonic() < deadline:
                time.sleep(0.02)
            assert path.stat().st_size > before  # the thread copied them into the database
        assert cache._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)  # restored
        first, second = cache.checkpoints_in_background(), cache.checkpoints_in_background()
        first.__enter__()
        second.__enter__()  # two runs overlapping, the first ending first
        first.__exit__(None, None, None)
        second.__exit__(None, None, None)
        assert cache._conn.execute("PRAGMA wal_autocheckpoint").fetchone() == (1000,)  # not left at 0
        assert len(cache) == 300
