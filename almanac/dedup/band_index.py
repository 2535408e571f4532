"""The persistent band index: per crawl month, every band's hashes sorted, each with its document.

One segment per crawl month (``<crawl month>.hashes.npy``: ``(bands, n)`` uint64, each band's row
sorted; ``<crawl month>.rows.npy``: the document of each hash, its row in the month's signature file),
over the month's non-empty documents. A segment is a function of its month's signature file alone, so
an incremental dedup writes only the new months' segments, and a full rebuild writes the same bytes.
A new month's documents are probed against the old segments by binary search (:func:`probe`).
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from almanac.core.io import atomic_path
from almanac.dedup.banding import BandColumns

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


def segment_paths(folder: Path, crawl: str) -> tuple[Path, Path]:
    return folder / f"{crawl}.hashes.npy", folder / f"{crawl}.rows.npy"


@dataclass(frozen=True)
class MonthSlice:
    crawl: str
    start: int  # its first row in the band columns
    stop: int


def write_segments(
    folder: Path, months: list[MonthSlice], hashes: BandColumns, empty: npt.NDArray[np.bool_]
) -> None:
    """The segment of each of ``months`` (row ranges of ``hashes`` and ``empty``), written straight to
    disk band by band with ``pwrite``: memory holds one band column, not the index (a memory map would
    keep every written page in the process's resident set, 16 bytes per band per document). Each file
    is renamed into place when all are written."""
    bands = hashes.shape[1]
    kept = {month.crawl: np.flatnonzero(~empty[month.start : month.stop]) for month in months}
    with ExitStack() as stack:
        files: dict[str, list[tuple[int, int]]] = {}  # per month: (descriptor, first data byte) of each
        for month in months:
            files[month.crawl] = []
            for path, dtype in zip(segment_paths(folder, month.crawl), (np.uint64, np.int64), strict=True):
                temp = stack.enter_context(atomic_path(path))
                shape = (bands, len(kept[month.crawl]))
                handle = stack.enter_context(temp.open("wb"))
                header = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False}
                np.lib.format.write_array_header_1_0(handle, {**header, "shape": shape})
                handle.flush()
                files[month.crawl].append((handle.fileno(), handle.tell()))
        for band in range(bands):
            column = hashes.column(band)
            for month in months:
                local = kept[month.crawl]
                values = column[month.start : month.stop][local]
                order = np.argsort(values, kind="stable")
                for (descriptor, first), data in zip(
                    files[month.crawl], (values[order], local[order]), strict=True
                ):
                    raw = np.ascontiguousarray(data, dtype="<u8" if data.dtype.kind == "u" else "<i8")
                    os.pwrite(descriptor, raw.data, first + band * len(local) * 8)


@dataclass(frozen=True)
class Segment:
    hashes: U64  # (bands, n), memory-mapped
    rows: I64


def load_segment(folder: Path, crawl: str) -> Segment:
    hashes_path, rows_path = segment_paths(folder, crawl)
    return Segment(np.load(hashes_path, mmap_mode="r"), np.load(rows_path, mmap_mode="r"))


def probe(sorted_hashes: U64, rows: I64, queries: U64) -> tuple[I64, I64]:
    """Every ``(query index, row)`` whose hash in the sorted band equals the query's (binary search)."""
    low = np.searchsorted(sorted_hashes, queries, side="left")
    high = np.searchsorted(sorted_hashes, queries, side="right")
    counts = (high - low).astype(np.int64)
    total = int(counts.sum())
    if not total:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    which = np.repeat(np.arange(len(queries), dtype=np.int64), counts)
    steps = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    positions = np.repeat(low.astype(np.int64), counts) + steps
    return which, np.asarray(rows[positions], dtype=np.int64)
