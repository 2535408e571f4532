"""A line at least every HEARTBEAT_SECONDS while one test runs long, so `make test` is never silent for a minute.

pytest prints a test's line when it ends; a whole-pipeline test runs `dvc repro` for minutes. A daemon thread
in each process that runs tests (each xdist worker, or the one pytest process) writes `still running <test>`
to the stderr this process had at session start, which pytest's capture does not redirect then (under xdist
it is the controller's, so the line reaches the same terminal or CI log).
"""

from __future__ import annotations

import os
import threading
import time

HEARTBEAT_SECONDS = 40.0


class Heartbeat:
    def __init__(self, every: float = HEARTBEAT_SECONDS, stream: int | None = None) -> None:
        self.every = every
        # The real stderr by default: made at session start, between pytest's captures.
        self.stream = os.dup(2) if stream is None else stream
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "")
        self.lock = threading.Lock()
        self.test: str | None = None
        self.started = 0.0
        self.last_said = 0.0
        threading.Thread(target=self._beat, name="test-heartbeat", daemon=True).start()

    def begin(self, nodeid: str) -> None:
        with self.lock:
            self.test, self.started = nodeid, time.monotonic()
            self.last_said = self.started

    def end(self) -> None:
        with self.lock:
            self.test = None

    def said_something(self) -> None:
        """Another line reached the terminal for this test (e.g. the sample build's stage lines)."""
        with self.lock:
            self.last_said = time.monotonic()

    def _beat(self) -> None:
        while True:
            time.sleep(min(1.0, self.every / 4))
            with self.lock:
                now = time.monotonic()
                if self.test is None or now - self.last_said < self.every:
                    continue
                self.last_said = now
                where = f"[{self.worker}] " if self.worker else ""
                line = f"{where}still running {self.test} ({now - self.started:.0f} s)\n"
            try:
                os.write(self.stream, line.encode())
            except OSError:
                return  # the terminal is gone: the run is ending
