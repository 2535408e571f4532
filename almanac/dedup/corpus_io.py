"""Reading texts back by position and writing the kept corpus, never a whole month in memory.

Every article is addressed by ``(ingest_file, ingest_row)`` from its signature row. Verification asks
DuckDB for a batch of texts: it joins the positions with ``read_parquet(..., filename=true,
file_row_number=true)`` over the files that hold a wanted row. The kept corpus is written by a bucket
sort on disk (:func:`write_corpus`), in pyarrow.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.ipc
import pyarrow.parquet as pq

from almanac.core.io import PARQUET_COMPRESSION, atomic_dir, write_parquet
from almanac.core.lazy import lazy_module
from almanac.core.schemas import ARTICLE_SCHEMA
from almanac.dedup.signature_store import stream_batches

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

_JOIN = """
    SELECT {columns} FROM read_parquet($files, filename = true, file_row_number = true) AS article
    JOIN wanted ON article.filename = wanted.ingest_file AND article.file_row_number = wanted.ingest_row
    ORDER BY wanted.ord
"""


@contextmanager
def duckdb_session(memory_limit: str) -> Iterator[duckdb.DuckDBPyConnection]:
    """A DuckDB connection that spills to a private temporary folder past ``memory_limit``."""
    with tempfile.TemporaryDirectory(prefix="almanac-dedup-duckdb-") as spill:
        con = duckdb.connect()
        try:
            con.execute("SET TimeZone = 'UTC'")  # publish dates come back as UTC instants
            con.execute(f"SET memory_limit = '{memory_limit}'")
            con.execute(f"SET temp_directory = '{spill}'")
            # DuckDB would keep the Parquet bytes it read in memory (up to memory_limit) for a re-read.
            con.execute("SET enable_external_file_cache = false")
            # One thread: each thread sorts and scans in its own buffers, and two of them ran out of a
            # 256 MB window at 50k articles a month where one spills and finishes (bench/dedup_scale.py).
            con.execute("SET threads = 1")
            con.execute("SET preserve_insertion_order = false")  # every query that needs order says so
            yield con
        finally:
            con.close()


def _wanted(meta: pa.Table, rows: npt.NDArray[np.int64]) -> tuple[pa.Table, list[str]]:
    chosen = meta.select(["ingest_file", "ingest_row"]).take(pa.array(rows))
    wanted = chosen.append_column("ord", pa.array(np.arange(len(rows), dtype=np.int64)))
    files = sorted(set(chosen.column("ingest_file").unique().to_pylist()))
    return wanted, files


class TextReader:
    """Texts of metadata rows, read from the ingest files (the TextLookup of the dedup stage)."""

    def __init__(self, con: duckdb.DuckDBPyConnection, meta: pa.Table) -> None:
        self.con = con
        self.meta = meta

    def __call__(self, rows: npt.NDArray[np.int64]) -> list[str]:
        if not len(rows):
            return []
        wanted, files = _wanted(self.meta, rows)
        self.con.register("wanted", wanted)
        try:
            texts: pa.Table = self.con.sql(
                _JOIN.format(columns="article.text"), params={"files": files}
            ).to_arrow_table()
        finally:
            self.con.unregister("wanted")
        column = texts.column(0)
        if len(column) != len(rows):
            raise RuntimeError(f"asked for {len(rows)} texts, the ingest files gave {len(column)}: re-sign")
        return [str(text) for text in column.to_pylist()]


def write_corpus(
    meta: pa.Table, kept: npt.NDArray[np.int64], months: list[str], directory: Path, batch_rows: int
) -> None:
    """``<directory>/<month>.parquet`` for every month: the ``kept`` rows (already in output order) of
    that publish month, full article columns, in row groups of ``batch_rows``; the folder is replaced
    as a whole.

    A bucket sort on disk, so memory holds one read batch and one bucket whatever the month's size:
    pass 1 streams the month's ingest files and appends each kept row to the Arrow IPC spill file of
    its bucket (``batch_rows`` consecutive output positions); pass 2 reads the buckets in order, puts
    each in output order and writes it.
    """
    month_of_kept = np.asarray(meta.column("month").take(pa.array(kept)).to_numpy(zero_copy_only=False))
    with atomic_dir(directory) as staging, tempfile.TemporaryDirectory(prefix="almanac-dedup-") as spill:
        for month in months:
            rows = kept[month_of_kept == month]
            target = staging / f"{month}.parquet"
            if not len(rows):
                write_parquet(ARTICLE_SCHEMA.empty_table(), target)
                continue
            buckets = _spill_buckets(meta, rows, Path(spill) / month, batch_rows)
            written = _write_buckets(buckets, target, batch_rows)
            if written != len(rows):
                raise RuntimeError(f"{month}: {len(rows)} kept articles, the ingest files gave {written}")


def _spill_buckets(meta: pa.Table, rows: npt.NDArray[np.int64], folder: Path, batch_rows: int) -> list[Path]:
    folder.mkdir(parents=True)
    wanted, files = _wanted(meta, rows)
    order = pa.schema([*ARTICLE_SCHEMA, pa.field("ord", pa.int64())])
    paths = [folder / f"{bucket}.arrow" for bucket in range((len(rows) + batch_rows - 1) // batch_rows)]
    writers: dict[int, pa.ipc.RecordBatchFileWriter] = {}
    try:
        for file in files:
            mine = wanted.filter(pc.equal(wanted.column("ingest_file"), file))
            positions = mine.column("ingest_row").to_numpy()
            ords = mine.column("ord").to_numpy()
            sorter = np.argsort(positions)
            positions, ords = positions[sorter], ords[sorter]
            first = 0
            for batch in stream_batches(Path(file), ARTICLE_SCHEMA.names, batch_rows):
                low = int(np.searchsorted(positions, first))
                high = int(np.searchsorted(positions, first + batch.num_rows))
                if high > low:
                    taken = batch.cast(ARTICLE_SCHEMA).take(pa.array(positions[low:high] - first))
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
