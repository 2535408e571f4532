"""The test modules' assertion rewriting done once per run, ahead of the xdist workers, instead of once per worker.

pytest rewrites the asserts of every test module it imports and caches the result in `__pycache__` (a
`*-pytest-<version>.pyc` beside the usual bytecode), unless PYTHONDONTWRITEBYTECODE is set, as it is in CI:
then each worker of each run rewrote all ~180 test modules again, ~11 s of CPU of its ~25 s collection.
The xdist controller, which imports no test module, rewrites them in a thread at session start, in
collection order, and writes the cache (atomically, as pytest does): a worker finds a module's rewrite
cached instead of making it (pytest reads the cache whatever PYTHONDONTWRITEBYTECODE says). This uses
pytest's private rewriting functions; if they change, nothing is written and the workers rewrite as before.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest


def start(config: pytest.Config, tests: Path) -> threading.Thread | None:
    """Begin rewriting the test modules under ``tests`` in a daemon thread (None if pytest's API moved)."""
    try:
        from _pytest.assertion import rewrite

        hook = next(item for item in sys.meta_path if isinstance(item, rewrite.AssertionRewritingHook))
        state = config.stash[rewrite.assertstate_key]
    except Exception:  # another pytest, or assertion rewriting is off (--assert=plain)
        return None

    def rewrite_all() -> None:
        for path in sorted(tests.rglob("*.py")):  # pytest collects a folder's entries sorted by name
            try:
                name = ".".join(path.relative_to(tests.parent).with_suffix("").parts)
                if not hook._should_rewrite(name, str(path), state):
                    continue
                pyc = rewrite.get_cache_dir(path) / (path.name[:-3] + rewrite.PYC_TAIL)
                if rewrite._read_pyc(path, pyc, state.trace) is not None:
                    continue  # cached already (a worker got there first, or an earlier run)
                if not rewrite.try_makedirs(pyc.parent):
                    return  # a read-only checkout: the workers rewrite as before
                source, code = rewrite._rewrite_test(path, config)
                rewrite._write_pyc(state, code, source, pyc)
            except Exception:
                return  # pytest's private API moved: leave it to the workers

    thread = threading.Thread(target=rewrite_all, name="rewrite-ahead", daemon=True)
    thread.start()
    return thread
