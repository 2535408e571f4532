"""How answers reach the cache: live ones one transaction per turn of the event loop, offline ones in
batches.

A commit costs ~55 us of CPU whatever it holds (plus ~8 us a row), so one per answer is a tenth of
the client's budget per call. Live answers read in the same turn of the event loop share one: the
first of a turn makes its worker yield once (:meth:`AnswerWriter.add`), the others read meanwhile
join its transaction, and every one of those workers waits for that commit before it sends its next
request. So a worker holds at most one call that a ``kill -9`` can lose (in flight, or answered and
not yet committed): never more than ``max_concurrency`` calls are repeated by the rerun
(tests/llm/test_resume.py). A commit that fails raises in those workers and stops the run. A longer window
(say 20 ms) would halve the commits again but let a killed run lose a window's answers on top of the
calls in flight: a rerun would repeat those calls, so it is not done.

Offline answers cost no call: they are committed every :data:`COMMIT_MAX_ROWS` and when the run ends
or fails (:meth:`AnswerWriter.add_batched`, :meth:`AnswerWriter.flush`), instead of one commit each.
"""

from __future__ import annotations

import asyncio

from almanac.llm.cache import CachedResponse, LLMCache

Row = tuple[str, str, str, str, CachedResponse]  # key, endpoint, task, prompt_version, response
COMMIT_MAX_ROWS = 512


class AnswerWriter:
    def __init__(self, cache: LLMCache, max_rows: int = COMMIT_MAX_ROWS) -> None:
        self.cache = cache
        self.max_rows = max_rows
        self.pending: list[Row] = []
        self._batch: asyncio.Future[None] | None = None  # the live batch of this loop turn, until committed

    async def add(self, row: Row) -> None:
        """A live answer; returns once it is committed, with the others read in this loop turn."""
        self.pending.append(row)
        if self._batch is not None:  # a worker of this turn commits it; wait for that before asking again
            await self._batch
            return
        batch = self._batch = asyncio.get_running_loop().create_future()
        try:
            await asyncio.sleep(0)  # the other answers of this turn join the batch
            self._batch = None
            self.flush()
        except BaseException as error:
            self._batch = None
            if isinstance(error, Exception):
                batch.set_exception(error)  # the riders stop too
                batch.exception()  # retrieved here, for when no rider waits on it
            else:
                batch.cancel()  # cancelled while waiting: the run is stopping
            raise
        batch.set_result(None)

    def add_batched(self, row: Row) -> None:
        """An answer that cost no call: committed with its batch, or by :meth:`flush`."""
        self.pending.append(row)
        if len(self.pending) >= self.max_rows:
            self.flush()

    def flush(self) -> None:
        """Commit what is pending (one transaction); on failure the rows stay pending and it raises."""
        rows, self.pending = self.pending, []
        try:
            self.cache.put_many(rows)
        except BaseException:
            self.pending = rows + self.pending
            raise
