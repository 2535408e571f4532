"""How answers reach the cache: live ones one transaction per turn of the event loop, offline ones in
batches.

A commit costs ~55 us of CPU whatever it holds (plus ~8 us a row), so one per answer is a tenth of
the client's budget per call. Live answers read in the same turn of the event loop share one: the
first of a turn makes its worker yield once (:meth:`AnswerWriter.add`), the others read meanwhile
join its transaction, and that worker commits before it takes its next request. So a ``kill -9``
loses at most the calls in flight and the answers read in that very turn, never more calls than
``max_concurrency`` (tests/llm/test_resume.py); a commit that fails raises in the committing worker
and stops the run. A longer window (say 20 ms) would halve the commits again but let a killed run lose
a window's answers on top of the calls in flight: a rerun would repeat those calls, so it is not done.

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

    async def add(self, row: Row) -> None:
        """A live answer, committed with the others of this loop turn before the first of them returns."""
        self.pending.append(row)
        if len(self.pending) == 1:  # this worker commits; later ones in this turn ride along
            await asyncio.sleep(0)
            self.flush()

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
