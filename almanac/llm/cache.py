"""Persistent, content-addressed store of LLM answers (SQLite in WAL mode).

Why SQLite: many Ray worker processes write to one file at once; WAL mode lets readers proceed while
one writer commits, and a busy timeout queues concurrent writers instead of failing. Each finished
call is committed at once (with the others read in the same event-loop turn, :mod:`almanac.llm.answers`),
so a ``kill -9`` loses only the calls that were still in flight; a rerun finds every committed answer and
makes no request for it.

The key is the SHA-256 of canonical JSON over everything that determines the answer: backend, server,
model, rendered messages, sampling parameters and the prompt's version and content hash. The API key
is not part of a key and is never stored.

Requests that failed for a content reason (an answer cut at max_tokens, reasoning only, an empty answer,
a 4xx for this request alone) are kept in a table of their own with their reason and the stage that
asked, so a rerun does not pay for them again; a success for the same key, if one ever arrives, wins.
Transport and server failures are never stored: the next run asks again. :meth:`LLMCache.forget_failures`
(``almanac llm forget-failures``) clears the table, or a stage's or a reason's part of it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    task TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    text TEXT NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    created REAL NOT NULL
)
"""
_FAILURES_SCHEMA = """
CREATE TABLE IF NOT EXISTS failures (
    key TEXT PRIMARY KEY,
    endpoint TEXT NOT NULL,
    task TEXT NOT NULL,
    prompt_version TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL,
    created REAL NOT NULL,
    stage TEXT NOT NULL DEFAULT ''
)
"""
_FAILURE_COLUMNS = "key, endpoint, task, prompt_version, reason, detail, created, stage"
_LOOKUP_CHUNK = 500  # stay below SQLite's bound-parameter limit
CHECKPOINT_EVERY_S = 1.0


# The canonical JSON of a key's payload; one encoder for the process (json.dumps builds one per call).
CANONICAL_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def cache_key(payload: Mapping[str, Any]) -> str:
    canonical = CANONICAL_JSON.encode(payload)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class CachedResponse:
    text: str
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class CachedFailure:
    reason: str  # the reject reason, e.g. llm_unreadable_response
    detail: str  # redacted before it was stored


class LLMCache:
    """One connection per process (and per thread); open it where the work runs, not before forking."""

    def __init__(self, path: str | Path, busy_timeout_s: float = 60.0) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, timeout=busy_timeout_s, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        # NORMAL: a commit survives a killed process (the WAL is in the OS cache); only power loss can
        # drop the last few commits, which then are simply asked again.
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._live_runs = 0  # live runs checkpointing in the background (checkpoints_in_background)
        self._automatic_checkpoint = 1000  # SQLite's default, restored when the last live run ends
        self._conn.execute(_SCHEMA)
        self._conn.execute(_FAILURES_SCHEMA)
        self._add_stage_column()

    def _add_stage_column(self) -> None:
        """Caches written before failures named their stage get the column (empty for the old rows)."""
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(failures)")}
        if "stage" in columns:
            return
        try:
            self._conn.execute("ALTER TABLE failures ADD COLUMN stage TEXT NOT NULL DEFAULT ''")
        except sqlite3.OperationalError as error:  # another process added it a moment ago
            if "duplicate column" not in str(error):
                raise

    def get(self, key: str) -> CachedResponse | None:
        row = self._conn.execute(
            "SELECT text, prompt_tokens, completion_tokens FROM responses WHERE key = ?", (key,)
        ).fetchone()
        return None if row is None else CachedResponse(row[0], row[1], row[2])

    def get_many(self, keys: Iterable[str]) -> dict[str, CachedResponse]:
        rows = self._rows_by_key("SELECT key, text, prompt_tokens, completion_tokens FROM responses", keys)
        return {key: CachedResponse(text, prompt, completion) for key, text, prompt, completion in rows}

    def get_failures(self, keys: Iterable[str]) -> dict[str, CachedFailure]:
        rows = self._rows_by_key("SELECT key, reason, detail FROM failures", keys)
        return {key: CachedFailure(reason, detail) for key, reason, detail in rows}

    def _rows_by_key(self, select: str, keys: Iterable[str]) -> Iterator[tuple[Any, ...]]:
        """``select`` (whose first column is the key) for the distinct ``keys``, a bounded chunk at a time."""
        unique = sorted(set(keys))
        for start in range(0, len(unique), _LOOKUP_CHUNK):
            chunk = unique[start : start + _LOOKUP_CHUNK]
            marks = ",".join("?" * len(chunk))
            yield from self._conn.execute(f"{select} WHERE key IN ({marks})", chunk)

    def put_failure(
        self,
        key: str,
        endpoint: str,
        task: str,
        prompt_version: str,
        failure: CachedFailure,
        stage: str = "",
    ) -> None:
        """Keep a terminal content failure; an existing entry keeps its first reason."""
        self._conn.execute(
            f"INSERT OR IGNORE INTO failures ({_FAILURE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (key, endpoint, task, prompt_version, failure.reason, failure.detail, time.time(), stage),
        )

    def failure_count(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM failures").fetchone()[0])

    def failure_counts(self) -> dict[tuple[str, str], int]:
        """Stored failures by (stage, reason): what ``almanac llm forget-failures`` can clear."""
        rows = self._conn.execute("SELECT stage, reason, COUNT(*) FROM failures GROUP BY stage, reason")
        return {(stage, reason): int(n) for stage, reason, n in rows}

    def forget_failures(
        self, task: str | None = None, stage: str | None = None, reason: str | None = None
    ) -> int:
        """Drop stored content failures (all, or those of one task, stage and/or reason) so the next run
        asks again; returns how many. A stage matches with or without its ``@<month>``."""
        where: list[str] = []
        values: list[str | int] = []
        for column, value in (("task", task), ("reason", reason)):
            if value is not None:
                where.append(f"{column} = ?")
                values.append(value)
        if stage is not None:
            where.append("(stage = ? OR substr(stage, 1, ?) = ?)")
            values += [stage, len(stage) + 1, stage + "@"]
        condition = f" WHERE {' AND '.join(where)}" if where else ""
        cursor = self._conn.execute(f"DELETE FROM failures{condition}", values)
        return int(cursor.rowcount)

    def put(self, key: str, endpoint: str, task: str, prompt_version: str, response: CachedResponse) -> None:
        self.put_many([(key, endpoint, task, prompt_version, response)])

    def put_many(self, rows: Sequence[tuple[str, str, str, str, CachedResponse]]) -> None:
        """Insert in one transaction; an existing key keeps its first answer (two workers may race)."""
        if not rows:
            return
        now = time.time()
        values = [
            (key, endpoint, task, version, r.text, r.prompt_tokens, r.completion_tokens, now)
            for key, endpoint, task, version, r in rows
        ]
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            self._conn.executemany("INSERT OR IGNORE INTO responses VALUES (?, ?, ?, ?, ?, ?, ?, ?)", values)
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        self._conn.execute("COMMIT")

    @contextlib.contextmanager
    def checkpoints_in_background(self, every_s: float = CHECKPOINT_EVERY_S) -> Iterator[None]:
        """While live calls are answered: this connection's commits no longer checkpoint the WAL (copy its
        pages into the database and sync it, which SQLite does in whichever commit crosses
        ``wal_autocheckpoint`` pages); a thread with its own connection does it every ``every_s``.

        Why: that commit runs on the event loop's thread, and on a busy disk a checkpoint took 20-75 ms,
        during which no reply was read and no request sent (docs/llm-client-cpu.md). SQLite releases the
        GIL while it copies and syncs, so the loop keeps going. Nothing changes for durability: a commit
        is kept once it is in the WAL, checkpointed or not.
        """
        # Runs on one cache may overlap (asyncio.gather): the first turns it off, the last restores it.
        if self._live_runs == 0:
            (self._automatic_checkpoint,) = self._conn.execute("PRAGMA wal_autocheckpoint").fetchone()
            self._conn.execute("PRAGMA wal_autocheckpoint=0")
        self._live_runs += 1
        stop = threading.Event()

        def checkpoint() -> None:
            connection = sqlite3.connect(self.path, timeout=0.0, isolation_level=None)
            try:
                while not stop.wait(every_s):
                    # Busy: the next round (or a commit after the run) does it.
                    with contextlib.suppress(sqlite3.OperationalError):
                        connection.execute("PRAGMA wal_checkpoint(PASSIVE)")
            finally:
                connection.close()

        thread = threading.Thread(target=checkpoint, name="llm-cache-checkpoint", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            self._live_runs -= 1
            if self._live_runs == 0:
                self._conn.execute(f"PRAGMA wal_autocheckpoint={int(self._automatic_checkpoint)}")

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> LLMCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
