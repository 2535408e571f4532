"""Per-crawl-month signature files: every ingested article's MinHash, written and read in batches.

One file per CC-News crawl month (``data/dedup/signatures/<crawl month>.parquet``), one row per article
of ``data/ingest/<crawl month>/articles/*.parquet`` in the order the dedup stage has always read them
(sorted file paths, rows in file order). Every article of the crawl month is signed, whatever its
publish month: the file then depends on its crawl month alone, and changing ``months`` re-signs nothing.
``ingest_file`` and ``ingest_row`` say where the text is, so dedup reads texts back by position.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from almanac.core.io import PARQUET_COMPRESSION, TEMP_PREFIX, atomic_path
from almanac.core.parallel import RayConfig, parallel_stream
from almanac.core.schemas import TIMESTAMP
from almanac.dedup.banding import band_hashes, empty_rows
from almanac.dedup.minhash import MinHashConfig, signatures

# The article columns signing reads; the text is dropped once signed.
_READ = ["id", "text", "publish_date", "publish_month", "source_file", "source_offset"]
# The columns dedup needs besides the signature (everything but the text).
META_COLUMNS = ["id", "month", "publish_date", "source", "ingest_file", "ingest_row"]


def signature_schema(num_perm: int) -> pa.Schema:
    return pa.schema(
        [
            pa.field("id", pa.string(), nullable=False),
            pa.field("month", pa.string(), nullable=False),  # publish month
            pa.field("publish_date", TIMESTAMP, nullable=False),
            pa.field("source", pa.string(), nullable=False),  # file:offset, as in reject rows
            pa.field("ingest_file", pa.string(), nullable=False),  # the ingest Parquet file holding the text
            pa.field("ingest_row", pa.int64(), nullable=False),  # its row in that file
            # num_perm little-endian uint32 values
            pa.field("signature", pa.binary(4 * num_perm), nullable=False),
        ]
    )


def ingest_files(directory: Path) -> list[Path]:
    """The ingest Parquet files of one crawl month, in the order dedup reads them (temporaries skipped)."""
    return sorted(
        path
        for path in directory.rglob("*.parquet")
        if not any(part.startswith(TEMP_PREFIX) for part in path.relative_to(directory).parts)
    )


def sign_crawl_month(
    ingest_dir: Path,
    out_path: Path,
    config: MinHashConfig,
    batch_rows: int,
    ray_config: RayConfig | None = None,
) -> int:
    """Write the signature file of one crawl month, ``batch_rows`` texts at a time; returns rows signed.

    With ``ray_config``, batches are signed on Ray workers (a few read ahead, written back in order) when
    the month's ingest files are big enough to pay (``ray.min_bytes``); the file is the same either way.
    """
    if batch_rows < 1:
        raise ValueError(f"batch_rows must be >= 1, got {batch_rows}")
    schema = signature_schema(config.num_perm)
    files = ingest_files(ingest_dir)
    count = sum(-(-pq.ParquetFile(path).metadata.num_rows // batch_rows) for path in files)
    size = sum(path.stat().st_size for path in files)
    tasks = (
        _SignTask(batch, config, schema, str(path), row)
        for path in files
        for row, batch in _numbered(stream_batches(path, _READ, batch_rows))
    )
    signed = 0
    with (
        atomic_path(out_path) as temp,
        pq.ParquetWriter(temp, schema, compression=PARQUET_COMPRESSION) as out,
    ):
        serial = RayConfig(executor="serial")
        for batch in parallel_stream(_sign_task, tasks, ray_config or serial, count, size, "sign", "batch"):
            out.write_batch(batch)
            signed += batch.num_rows
    return signed


def _numbered(batches: Iterator[pa.RecordBatch]) -> Iterator[tuple[int, pa.RecordBatch]]:
    """Each batch with its first row's position in the file."""
    row = 0
    for batch in batches:
        yield row, batch
        row += batch.num_rows


@dataclass(frozen=True)
class _SignTask:
    batch: pa.RecordBatch
    config: MinHashConfig
    schema: pa.Schema
    file: str
    first_row: int


def _sign_task(task: _SignTask) -> pa.RecordBatch:
    return _signed_batch(task.batch, task.config, task.schema, task.file, task.first_row)


def _signed_batch(
    batch: pa.RecordBatch, config: MinHashConfig, schema: pa.Schema, file: str, first_row: int
) -> pa.RecordBatch:
    sigs = signatures(batch.column("text").to_pylist(), config)
    blob = pa.py_buffer(np.ascontiguousarray(sigs, dtype="<u4").tobytes())
    count = batch.num_rows
    signature = pa.FixedSizeBinaryArray.from_buffers(schema.field("signature").type, count, [None, blob])
    offsets = pc.cast(batch.column("source_offset"), pa.string())
    source = pc.binary_join_element_wise(batch.column("source_file"), offsets, ":")
    columns = [
        batch.column("id"),
        batch.column("publish_month"),
        pc.cast(batch.column("publish_date"), TIMESTAMP),
        source,
        pa.array([file] * count, pa.string()),
        pa.array(np.arange(first_row, first_row + count, dtype=np.int64)),
        signature,
    ]
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def signature_matrix(column: pa.Array | pa.ChunkedArray, num_perm: int) -> npt.NDArray[np.uint32]:
    """The ``(rows, num_perm)`` uint32 matrix of a signature column (a copy, native byte order)."""
    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    parts = []
    for chunk in chunks:
        if chunk.null_count:
            raise ValueError("signature column has nulls")
        data = chunk.buffers()[1]
        start = chunk.offset * 4 * num_perm
        values = np.frombuffer(data, dtype="<u4", count=len(chunk) * num_perm, offset=start)
        parts.append(values.reshape(len(chunk), num_perm).astype(np.uint32))
    return np.concatenate(parts) if parts else np.zeros((0, num_perm), dtype=np.uint32)


@dataclass(frozen=True)
class SignedCorpus:
    """What dedup holds for every article of every crawl month: metadata, band hashes, empty flags."""

    meta: pa.Table  # META_COLUMNS, in reading order
    hashes: npt.NDArray[np.uint64]  # (rows, bands)
    empty: npt.NDArray[np.bool_]  # rows whose text has no word


def read_signed(paths: list[Path], num_perm: int, bands: int, rows: int, batch_rows: int) -> SignedCorpus:
    """Band hashes of every signature file, read ``batch_rows`` signatures at a time (the signatures
    themselves are never all in memory: only ``bands * 8`` bytes per article stay)."""
    schema = signature_schema(num_perm)
    meta_schema = pa.schema([schema.field(name) for name in META_COLUMNS])
    total = sum(pq.ParquetFile(path).metadata.num_rows for path in paths)
    hashes = np.empty((total, bands), dtype=np.uint64)  # filled in place: never a second copy
    empty = np.empty(total, dtype=bool)
    metas: list[pa.RecordBatch] = []
    start = 0
    for batch in _batches(paths, batch_rows):
        width = batch.schema.field("signature").type.byte_width
        if width != 4 * num_perm:
            raise ValueError(f"signatures have {width // 4} values, params say num_perm={num_perm}: re-sign")
        sigs = signature_matrix(batch.column("signature"), num_perm)
        stop = start + batch.num_rows
        hashes[start:stop] = band_hashes(sigs, bands, rows)
        empty[start:stop] = empty_rows(sigs)
        # Parquet keeps second timestamps as milliseconds: back to the schema's unit
        metas.append(batch.select(META_COLUMNS).cast(meta_schema))
        start = stop
    meta = pa.Table.from_batches(metas, meta_schema) if metas else meta_schema.empty_table()
    return SignedCorpus(meta, hashes, empty)


def _batches(paths: list[Path], batch_rows: int) -> Iterator[pa.RecordBatch]:
    for path in paths:
        yield from stream_batches(path, None, batch_rows)


def stream_batches(path: Path, columns: list[str] | None, batch_rows: int) -> Iterator[pa.RecordBatch]:
    """``batch_rows`` rows at a time, reading column chunks through a 1 MB buffer on one thread: by
    default pyarrow reads whole row groups ahead (an ingest file is one row group per publish month)."""
    source = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
    yield from source.iter_batches(batch_size=batch_rows, columns=columns, use_threads=False)
