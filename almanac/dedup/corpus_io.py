"""Reading texts back by position and writing the kept corpus, never a whole month in memory.

Every article is addressed by ``(ingest_file, ingest_row)`` from its signature row. Verification reads
the texts of candidate documents in storage order (:class:`StoredTexts`): each ingest file that holds one
is streamed once per stage. The kept corpus is written by a bucket sort on disk (:func:`write_corpus`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc
import pyarrow.parquet as pq

from almanac.core.io import PARQUET_COMPRESSION, atomic_dir, atomic_path, write_parquet
from almanac.core.schemas import ARTICLE_SCHEMA
from almanac.dedup.signature_store import stream_batches, stream_groups


def _wanted(meta: pa.Table, rows: npt.NDArray[np.int64]) -> tuple[pa.Table, list[str]]:
    chosen = meta.select(["ingest_file", "ingest_row"]).take(pa.array(rows))
    wanted = chosen.append_column("ord", pa.array(np.arange(len(rows), dtype=np.int64)))
    files = sorted(set(chosen.column("ingest_file").unique().to_pylist()))
    return wanted, files


def _file_positions(wanted: pa.Table, file: str) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Rows of ``file`` that ``wanted`` asks for, ascending, and the ``ord`` of each."""
    mine = wanted.filter(pc.equal(wanted.column("ingest_file"), file))
    positions = mine.column("ingest_row").to_numpy()
    ords = mine.column("ord").to_numpy()
    sorter = np.argsort(positions, kind="stable")
    return positions[sorter], ords[sorter]


class StoredTexts:
    """Texts of metadata rows, read from the ingest files in storage order (the dedup stage's TextSource):
    file by file, ``batch_rows`` rows at a time, so each file holding a wanted row is read once."""

    def __init__(self, meta: pa.Table, batch_rows: int) -> None:
        self.meta = meta
        self.batch_rows = batch_rows

    def __call__(self, rows: npt.NDArray[np.int64]) -> Iterator[tuple[npt.NDArray[np.int64], list[str]]]:
        if not len(rows):
            return
        wanted, files = _wanted(self.meta, rows)
        given = 0
        for file in files:
            positions, ords = _file_positions(wanted, file)
            for first, batch in stream_groups(Path(file), ["text"], self.batch_rows, positions):
                low = int(np.searchsorted(positions, first))
                high = int(np.searchsorted(positions, first + batch.num_rows))
                if high > low:
                    taken = batch.column(0).take(pa.array(positions[low:high] - first))
                    yield ords[low:high], [str(text) for text in taken.to_pylist()]
                    given += high - low
        if given != len(rows):
            raise RuntimeError(f"asked for {len(rows)} texts, the ingest files gave {given}: re-sign")


def write_corpus(
    meta: pa.Table,
    kept: npt.NDArray[np.int64],
    months: list[str],
    directory: Path,
    batch_rows: int,
    workers: int = 1,
) -> None:
    """``<directory>/<month>.parquet`` for every month: the ``kept`` rows (already in output order) of
    that publish month, full article columns, in row groups of ``batch_rows``; the folder is replaced
    as a whole. Months are written on ``workers`` threads (reading, compressing and writing Parquet
    release the GIL); each file is the same whichever thread writes it.

    A bucket sort on disk, so memory holds one read batch and one bucket per thread whatever the month's
    size: pass 1 streams the month's ingest files and appends each kept row to the Arrow IPC spill file
    of its bucket (``batch_rows`` consecutive output positions); pass 2 reads the buckets in order, puts
    each in output order and writes it.
    """
    with atomic_dir(directory) as staging:
        write_months(meta, kept, months, staging, batch_rows, workers)


def write_months(
    meta: pa.Table,
    kept: npt.NDArray[np.int64],
    months: list[str],
    directory: Path,
    batch_rows: int,
    workers: int = 1,
) -> None:
    """``<directory>/<month>.parquet`` of ``months`` as :func:`write_corpus` writes them, each replaced
    atomically on its own: other files in ``directory`` stay (an incremental dedup rewrites only the
    months whose kept set changed)."""
    # each kept row's month as its position in ``months`` (int32s, not a Python string per row)
    month_of_kept = pc.index_in(
        meta.column("month").take(pa.array(kept)), value_set=pa.array(months, pa.string())
    )
    month_of_kept = np.asarray(month_of_kept.fill_null(-1).to_numpy(zero_copy_only=False))
    with tempfile.TemporaryDirectory(prefix="almanac-dedup-") as spill:

        def write_month(month: str) -> None:
            rows = kept[month_of_kept == months.index(month)]
            target = directory / f"{month}.parquet"
            if not len(rows):
                write_parquet(ARTICLE_SCHEMA.empty_table(), target)
                return
            buckets = _spill_buckets(meta, rows, Path(spill) / month, batch_rows)
            with atomic_path(target) as temp:
                written = _write_buckets(buckets, temp, batch_rows)
                if written != len(rows):
                    raise RuntimeError(f"{month}: {len(rows)} kept articles, the ingest files gave {written}")

        with ThreadPoolExecutor(max(1, workers)) as pool:
            for done in pool.map(write_month, months):  # re-raises a month's error here
                del done


def _spill_buckets(meta: pa.Table, rows: npt.NDArray[np.int64], folder: Path, batch_rows: int) -> list[Path]:
    folder.mkdir(parents=True)
    wanted, files = _wanted(meta, rows)
    order = pa.schema([*ARTICLE_SCHEMA, pa.field("ord", pa.int64())])
    paths = [folder / f"{bucket}.arrow" for bucket in range((len(rows) + batch_rows - 1) // batch_rows)]
    writers: dict[int, pa.ipc.RecordBatchFileWriter] = {}
    try:
        for file in files:
            positions, ords = _file_positions(wanted, file)
            first = 0
            for batch in stream_batches(Path(file), ARTICLE_SCHEMA.names, batch_rows):
                low = int(np.searchsorted(positions, first))
                high = int(np.searchsorted(positions, first + batch.num_rows))
                if high > low:
                    taken = batch.take(pa.array(positions[low:high] - first)).cast(ARTICLE_SCHEMA)
                    taken = taken.append_column("ord", pa.array(ords[low:high]))
                    bucket_of = ords[low:high] // batch_rows
                    for bucket in np.unique(bucket_of):
                        part = taken.filter(pa.array(bucket_of == bucket))
                        if int(bucket) not in writers:
                            writers[int(bucket)] = pa.ipc.new_file(paths[int(bucket)], order)
                        writers[int(bucket)].write_batch(part)
                first += batch.num_rows
    finally:
        for writer in writers.values():
            writer.close()
    return paths


def _write_buckets(buckets: list[Path], target: Path, batch_rows: int) -> int:
    written = 0
    with pq.ParquetWriter(target, ARTICLE_SCHEMA, compression=PARQUET_COMPRESSION) as writer:
        for path in buckets:
            with pa.memory_map(str(path)) as source:
                bucket = pa.ipc.open_file(source).read_all()
            bucket = bucket.take(pc.sort_indices(bucket.column("ord"))).drop_columns(["ord"])
            writer.write_table(bucket.combine_chunks(), row_group_size=batch_rows)
            written += bucket.num_rows
            del bucket
            path.unlink()
    return written
