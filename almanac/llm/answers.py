"""How answers reach the cache: live ones one transaction per turn of the event loop, offline ones in
batches.

A commit costs ~55 us of CPU whatever it holds (plus ~8 us a row), so one per answer is a tenth of
the client's budget per call. Live answers read in the same turn of the event loop share one: each
worker yields once (:meth:`AnswerWriter.add`), the first to run again commits the turn's answers, and
every one of those workers has its answer committed before it sends its next request. So a worker
holds at most one call that a ``kill -9`` can lose (in flight, or answered and not yet committed):
never more than ``max_concurrency`` calls are repeated by the rerun (tests/llm/test_resume.py). A
commit that fails raises in the worker that tried it, and again in each other worker of that turn
(their rows are still pending), which stops the run. A longer window
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
        self.added = 0  # live answers handed over so far
        self.committed = 0  # of those, the ones committed (they are the first ``committed``)
        self._failed: tuple[int, Exception] | None = None  # a failed commit: answers up to n, the error

    async def add(self, row: Row) -> None:
        """A live answer; returns once it is committed, with the others read in this loop turn.

        Every worker of a turn yields once; the first of them to run again commits the rows of the
        whole turn, and the others, finding theirs committed, go on in that same turn. (Before, the
        others waited on a future the committing worker set, which woke them one loop turn later: that
        turn held every reply read meanwhile, and the wait was most of the time from one answer to the
        next request, docs/llm-client-cpu.md.)
        """
        self.pending.append(row)
        self.added += 1
        mine = self.added
        await asyncio.sleep(0)  # the other answers of this turn join the transaction
        if self.committed >= mine:
            return
        if self._failed is not None and mine <= self._failed[0]:
            raise self._failed[1]  # this answer's commit failed in another worker: stop here too
        through = self.added
        try:
            self.flush()  # the first of the turn: commit them all
        except Exception as error:
            self._failed = (through, error)
            raise

    def add_batched(self, row: Row) -> None:
        """An answer that cost no call: committed with its batch, or by :meth:`flush`."""
        self.pending.append(row)
        if len(self.pending) >= self.max_rows:
            self.flush()

    def flush(self) -> None:
        """Commit what is pending (one transaction); on failure the rows stay pending and it raises."""
        rows, self.pending, added = self.pending, [], self.added
        try:
            self.cache.put_many(rows)
        except BaseException:
            self.pending = rows + self.pending
            raise
        self.committed = added
