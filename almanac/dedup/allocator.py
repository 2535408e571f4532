"""Give the pages of freed arrays back to the system between dedup's phases (glibc).

numpy's arrays come from glibc's malloc. An array of at least the mmap threshold is its own mapping,
unmapped when freed; a smaller one comes from a heap (one per thread that allocates), whose freed pages
stay resident. The threshold starts at 128 KiB and rises to the size of every mapped block freed, up to
32 MiB, so at ~1M articles (8 MB band columns, sort buffers and index arrays) most of banding's and
sorting's arrays end up in heaps, and what they leave behind is still counted in the peak of the next
phase, when the next phase's own large arrays are mapped afresh. ``malloc_trim(0)`` at a phase's end
returns every free page of every heap (one pass over the heaps, milliseconds); fixing the threshold
low instead (``mallopt``) costs a mapping and page faults per array, ~13% more CPU at 200k articles
(docs/scaling.md). Arrow's buffers come from its own pool (``ARROW_DEFAULT_MEMORY_POOL``): its unused
pages are released too.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache

import pyarrow as pa


@cache
def _trim() -> ctypes._CFuncPtr | None:  # type: ignore[name-defined]
    if not sys.platform.startswith("linux"):
        return None
    try:
        trim = ctypes.CDLL("libc.so.6").malloc_trim
    except (OSError, AttributeError):  # not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def release_free_memory() -> bool:
    """Return the free pages of glibc's heaps and of Arrow's pool to the system; False where the C
    library is not glibc. Arrow's jemalloc and mimalloc purge freed pages only as they allocate again,
    so Arrow's sort buffers would stay resident through banding and verification, which are numpy."""
    pa.default_memory_pool().release_unused()
    trim = _trim()
    if trim is None:
        return False
    trim(0)  # 1 if it released pages, 0 if there were none to release
    return True
