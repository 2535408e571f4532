"""Reading texts back by position and writing the kept corpus, never a whole month in memory.

Every article is addressed by ``(ingest_file, ingest_row)`` from its signature row. Verification reads
the texts of candidate documents in storage order (:class:`StoredTexts`): each ingest file that holds one
is streamed once per stage. The kept corpus is written as parts, one per publish month and crawl month
(:func:`write_parts`), each a streaming pass over its crawl month's ingest files.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from almanac.core.io import PARQUET_COMPRESSION, atomic_path
from almanac.core.layout import EMPTY_PART
from almanac.core.schemas import ARTICLE_SCHEMA
from almanac.dedup.signature_store import stream_groups


@dataclass(frozen=True)
class Locations:
    """Where every metadata row's text is, as numpy arrays over the whole table (views of ``meta``'s own
    buffers when it holds one chunk): no Arrow take or filter per part or per ingest file."""

    files: list[str]  # ingest file paths, sorted (the order their rows are read in)
    file_of: npt.NDArray[np.int32]  # per metadata row: its file, an index into ``files``
    row_of: npt.NDArray[np.integer[Any]]  # per metadata row: its row in that file

    @classmethod
    def of(cls, meta: pa.Table) -> Locations:
        column = meta.column("ingest_file")
        if not pa.types.is_dictionary(column.type):
            column = pc.dictionary_encode(column)
        column = column.unify_dictionaries()
        names = [str(name) for name in column.chunk(0).dictionary.to_pylist()] if column.num_chunks else []
        codes = _numpy([chunk.indices for chunk in column.chunks], np.int32)
        rank = np.zeros(len(names), dtype=np.int32)
        rank[np.argsort(np.array(names, dtype=object), kind="stable")] = np.arange(len(names), dtype=np.int32)
        if not np.array_equal(rank, np.arange(len(names))):  # a dictionary out of path order
            codes = rank[codes]
        return cls(sorted(names), codes, _numpy(meta.column("ingest_row").chunks, np.int64))

    def by_file(
        self, rows: npt.NDArray[np.int64]
    ) -> Iterator[tuple[str, npt.NDArray[np.integer[Any]], npt.NDArray[np.int64]]]:
        """``(file, its rows ascending, the positions in ``rows`` of each)`` for every file holding one of
        ``rows``, files in path order. Rows already in storage order (a corpus part's) are not sorted."""
        files = self.file_of[rows]
        positions = self.row_of[rows]
        later = files[1:] > files[:-1]
        ordered = bool(np.all(later | ((files[1:] == files[:-1]) & (positions[1:] >= positions[:-1]))))
        del later
        order: npt.NDArray[np.int64] | None = None
        if not ordered:
            order = np.lexsort((positions, files))
            files, positions = files[order], positions[order]
        edges = np.concatenate(([0], np.flatnonzero(files[1:] != files[:-1]) + 1, [len(files)]))
        for start, stop in itertools.pairwise(edges.tolist()):
            if stop > start:
                ords = order[start:stop] if order is not None else np.arange(start, stop, dtype=np.int64)
                yield self.files[int(files[start])], positions[start:stop], ords


def _numpy(chunks: list[pa.Array], dtype: type[np.integer[Any]]) -> npt.NDArray[Any]:
    """One numpy array of integer chunks (a view of the only chunk's buffer when there is one)."""
    parts: list[npt.NDArray[Any]] = [np.asarray(chunk.to_numpy(zero_copy_only=False)) for chunk in chunks]
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)


class StoredTexts:
    """Texts of metadata rows, read from the ingest files in storage order (the dedup stage's TextSource):
    file by file, ``batch_rows`` rows at a time, so each file holding a wanted row is read once."""

    def __init__(self, meta: pa.Table, batch_rows: int) -> None:
        self.locations = Locations.of(meta)
        self.batch_rows = batch_rows

    def __call__(self, rows: npt.NDArray[np.int64]) -> Iterator[tuple[npt.NDArray[np.int64], list[str]]]:
        if not len(rows):
            return
        given = 0
        for file, positions, ords in self.locations.by_file(rows):
            for first, batch in stream_groups(Path(file), ["text"], self.batch_rows, positions):
                low = int(np.searchsorted(positions, first))
                high = int(np.searchsorted(positions, first + batch.num_rows))
                if high > low:
                    taken = batch.column(0).take(pa.array(positions[low:high] - first, pa.int64()))
                    yield ords[low:high], [str(text) for text in taken.to_pylist()]
                    given += high - low
        if given != len(rows):
            raise RuntimeError(f"asked for {len(rows)} texts, the ingest files gave {given}: re-sign")


@dataclass(frozen=True)
class Part:
    """One corpus part: the kept rows of publish month ``month`` read from crawl month ``crawl``."""

    month: str
    crawl: str  # a crawl month, or EMPTY_PART for a month without articles
    rows: npt.NDArray[np.int64]  # metadata rows, ascending (storage order: a crawl month's rows are read so)

    @property
    def key(self) -> str:
        return f"{self.month}/{self.crawl}"


def corpus_parts(
    meta: pa.Table, kept: npt.NDArray[np.int64], months: list[str], crawls: list[tuple[str, int]]
) -> list[Part]:
    """The parts of ``months``' corpus: ``crawls`` gives each crawl month's first metadata row (in
    ``meta``'s order); a month without kept rows gets one empty part, so its folder exists."""
    ordered = np.sort(kept)
    # each kept row's month as its position in ``months`` (int32s, not a Python string per row)
    month_codes = pc.index_in(
        meta.column("month").take(pa.array(ordered)), value_set=pa.array(months, pa.string())
    )
    month_of_kept = np.asarray(month_codes.fill_null(-1).to_numpy(zero_copy_only=False))
    starts = np.array([first for _crawl, first in crawls], dtype=np.int64)
    crawl_of_kept = np.searchsorted(starts, ordered, side="right") - 1
    parts = []
    for code, month in enumerate(months):
        mine = month_of_kept == code
        found = [
            Part(month, crawls[index][0], ordered[mine & (crawl_of_kept == index)])
            for index in np.unique(crawl_of_kept[mine])
        ]
        parts.extend(found or [Part(month, EMPTY_PART, np.zeros(0, dtype=np.int64))])
    return parts


def write_parts(
    meta: pa.Table, parts: list[Part], directory: Path, batch_rows: int, workers: int = 1
) -> None:
    """``<directory>/<month>/<crawl>.parquet`` of every part, each replaced atomically on its own (other
    files stay: an incremental dedup rewrites only the parts whose kept rows changed), on ``workers``
    threads (reading, compressing and writing Parquet release the GIL); a file is the same whichever
    thread writes it.

    A part's rows are its crawl month's ingest rows in storage order, so a part is one streaming pass over
    the ingest files holding its rows: nothing is sorted or spilled, memory holds about two row groups.
    Readers put a month in (publish date, id) order (almanac.core.layout.read_month_articles).
    """

    locations = Locations.of(meta)

    def write(part: Part) -> None:
        target = directory / part.month / f"{part.crawl}.parquet"
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(target) as temp:
            written = _write_part(locations, part.rows, temp, batch_rows)
        if written != len(part.rows):
            raise RuntimeError(f"{part.key}: {len(part.rows)} kept articles, the ingest files gave {written}")

    with ThreadPoolExecutor(max(1, workers)) as pool:
        for done in pool.map(write, parts):  # re-raises a part's error here
            del done


def _runs(batch: pa.RecordBatch, rows: npt.NDArray[np.integer[Any]]) -> list[pa.RecordBatch]:
    """``rows`` (ascending) of ``batch`` as zero-copy slices, one per run of consecutive rows: most rows
    are kept, so this is a few slices, and ``flush``'s ``combine_chunks`` is the only copy (a ``take``
    here was a second one, ~0.5 CPU s at 100k articles)."""
    breaks = np.flatnonzero(np.diff(rows) != 1) + 1
    starts = rows[np.concatenate(([0], breaks))]
    stops = rows[np.concatenate((breaks - 1, [len(rows) - 1]))] + 1
    return [batch.slice(int(start), int(stop - start)) for start, stop in zip(starts, stops, strict=True)]


def _write_part(locations: Locations, rows: npt.NDArray[np.int64], target: Path, batch_rows: int) -> int:
    """Row groups of ``batch_rows`` rows (the last one shorter), whatever batches the ingest files give."""
    written = 0
    pending: list[pa.RecordBatch] = []
    held = 0
    with pq.ParquetWriter(target, ARTICLE_SCHEMA, compression=PARQUET_COMPRESSION) as writer:

        def flush(size: int) -> None:
            nonlocal pending, held, written
            table = pa.Table.from_batches(pending, ARTICLE_SCHEMA)
            # only the row group's rows are copied into one chunk; the rest stay zero-copy slices of
            # the ingest batches until their own row group (combining all of them copied ~1/3 of the
            # rows twice)
            writer.write_table(table.slice(0, size).combine_chunks(), row_group_size=batch_rows)
            rest = table.slice(size)
            pending, held, written = rest.to_batches(), rest.num_rows, written + size

        if len(rows):
            for file, positions, _ords in locations.by_file(rows):
                for first, batch in stream_groups(Path(file), ARTICLE_SCHEMA.names, batch_rows, positions):
                    low = int(np.searchsorted(positions, first))
                    high = int(np.searchsorted(positions, first + batch.num_rows))
                    if high > low:
                        pending.extend(_runs(batch.cast(ARTICLE_SCHEMA), positions[low:high] - first))
                        held += high - low
                        while held >= batch_rows:
                            flush(batch_rows)
        if held:
            flush(held)
    return written
