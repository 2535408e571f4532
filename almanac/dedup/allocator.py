"""Give the pages of freed arrays back to the system between dedup's phases (glibc).

numpy's arrays come from glibc's malloc. An array of at least the mmap threshold is its own mapping,
unmapped when freed; a smaller one comes from a heap (one per thread that allocates), whose freed pages
stay resident. The threshold starts at 128 KiB and rises to the size of every mapped block freed, up to
32 MiB, so at ~1M articles (8 MB band columns, sort buffers and index arrays) most of banding's and
sorting's arrays end up in heaps, and what they leave behind is still counted in the peak of the next
phase, when the next phase's own large arrays are mapped afresh. ``malloc_trim(0)`` at a phase's end
returns every free page of every heap (one pass over the heaps, milliseconds); fixing the threshold
low instead (``mallopt``) costs a mapping and page faults per array, ~15% more CPU at 200k articles.
Arrow's buffers come from its own pool (``ARROW_DEFAULT_MEMORY_POOL``), which this does not touch.
"""

from __future__ import annotations

import ctypes
import sys
from functools import cache


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
    """Return the free pages of glibc's heaps to the system; False where the C library is not glibc."""
    trim = _trim()
    return bool(trim(0)) if trim is not None else False
