"""The persistent band index: per crawl month, every band's hashes sorted, each with its document.

One segment per crawl month (``<crawl month>.hashes.npy``: ``(bands, n)`` uint64, each band's row
sorted; ``<crawl month>.rows.npy``: the document of each hash, its row in the month's signature file),
over the month's non-empty documents. A segment is a function of its month's signature file alone, so
an incremental dedup writes only the new months' segments, and a full rebuild writes the same bytes.
A new month's documents are probed against the old segments by binary search (:func:`probe`).

Beside each segment, ``<crawl month>.meta.arrow`` keeps the month's metadata rows as dedup holds them
(id, publish month and date, source, ingest file and row; an uncompressed Arrow IPC file, read memory
mapped): an incremental dedup then decides over every month without decoding the old months'
signature files again (the archive-long Parquet decode and source split were ~5% of its CPU at 200k
articles over 8 months).
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from almanac.core.io import atomic_path
from almanac.dedup.banding import BandColumns
from almanac.dedup.held_meta import held, stored

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]


def segment_paths(folder: Path, crawl: str) -> tuple[Path, Path]:
    return folder / f"{crawl}.hashes.npy", folder / f"{crawl}.rows.npy"


def meta_path(folder: Path, crawl: str) -> Path:
    return folder / f"{crawl}.meta.arrow"


def write_metas(folder: Path, months: list[MonthSlice], meta: pa.Table) -> None:
    """The metadata file of each of ``months`` (row ranges of ``meta``)."""
    for month in months:
        write_meta(folder, month.crawl, meta.slice(month.start, month.stop - month.start))


def write_meta(folder: Path, crawl: str, meta: pa.Table) -> None:
    """One crawl month's metadata rows, as one record batch whose dictionaries are the month's own (a
    function of the rows alone: a full rebuild and an incremental run write the same bytes), in the
    file layout (``held_meta.STORED_SCHEMA``), whatever narrower types the stage holds them in."""
    meta = stored(meta)
    columns = []
    for field, column in zip(meta.schema, meta.columns, strict=True):
        if pa.types.is_dictionary(field.type):
            column = pc.dictionary_encode(column.cast(field.type.value_type).combine_chunks())
        columns.append(column)
    table = pa.table(columns, schema=meta.schema).combine_chunks()
    with atomic_path(meta_path(folder, crawl)) as temp, pa.ipc.new_file(temp, meta.schema) as writer:
        writer.write_table(table, max_chunksize=max(1, table.num_rows))


def load_meta(folder: Path, crawl: str) -> pa.Table:
    """A crawl month's metadata rows, as dedup holds them (almanac.dedup.held_meta)."""
    with pa.memory_map(str(meta_path(folder, crawl))) as source:
        return held(pa.ipc.open_file(source).read_all())


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
    """Every ``(query index, row)`` whose hash in the sorted band equals the query's (binary search),
    by query index."""
    order = np.argsort(queries, kind="stable")
    which, found = probe_sorted(sorted_hashes, rows, queries[order])
    which = order[which]
    by_query = np.argsort(which, kind="stable")
    return which[by_query], found[by_query]


def probe_sorted(sorted_hashes: U64, rows: I64, queries: U64) -> tuple[I64, I64]:
    """:func:`probe` of ascending ``queries`` (positions in them): binary searches of ascending keys
    start where the last one ended, and only the few queries found get a second search for the end of
    their run of equal hashes (most probes of a new month find nothing)."""
    if not len(queries) or not len(sorted_hashes):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    low = np.searchsorted(sorted_hashes, queries, side="left")
    hit = np.flatnonzero(sorted_hashes[np.minimum(low, len(sorted_hashes) - 1)] == queries)
    if not len(hit):
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    low = low[hit].astype(np.int64)
    high = np.searchsorted(sorted_hashes, queries[hit], side="right").astype(np.int64)
    counts = high - low
    total = int(counts.sum())
    which = np.repeat(hit.astype(np.int64), counts)
    steps = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
    positions = np.repeat(low, counts) + steps
    return which, np.asarray(rows[positions], dtype=np.int64)
