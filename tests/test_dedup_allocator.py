"""Returning freed memory between dedup's phases: glibc's heaps and Arrow's pool."""

from __future__ import annotations

import platform
import sys
import threading

import numpy as np
import pytest

from almanac.dedup.allocator import release_free_memory


def _rss_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


@pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc", reason="glibc only"
)
def test_freed_heap_pages_leave_the_resident_set() -> None:
    # 64 KiB arrays are below glibc's mmap threshold: they come from a thread's heap, whose pages stay
    # resident after the arrays are freed. One small array allocated last keeps the heap's top in use,
    # so glibc's own trimming at free() (top of the heap only) cannot give the rest back.
    held: list[np.ndarray] = []

    def allocate() -> None:
        for _ in range(2_000):  # ~128 MB
            held.append(np.ones(8_192, dtype=np.int64))
        held.append(np.ones(16, dtype=np.int64))

    worker = threading.Thread(target=allocate)
    worker.start()
    worker.join()
    pinned = held.pop()
    held.clear()
    before = _rss_kib()
    assert release_free_memory()
    after = _rss_kib()
    del pinned
    assert before - after > 32 * 1024, (before, after)  # tens of MB of the ~128 MB went back
