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
from typing import Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from almanac.core.io import PARQUET_COMPRESSION, TEMP_PREFIX, atomic_path
from almanac.core.parallel import RayConfig, parallel_stream
from almanac.core.schemas import TIMESTAMP
from almanac.dedup.banding import BandFile, band_hashes, empty_rows
from almanac.dedup.held_meta import MetaBuilder
from almanac.dedup.minhash import MinHashConfig, signatures

# The article columns signing reads; the text is dropped once signed.
_READ = ["id", "text", "publish_date", "publish_month", "source_file", "source_offset"]
# The columns dedup needs besides the signature (everything but the text).
META_COLUMNS = ["id", "month", "publish_date", "source", "ingest_file", "ingest_row"]
# Held dictionary-encoded by dedup: one of a few paths repeated on every row (the ingest file's path
# alone is ~45 bytes an article as a plain string, 4 bytes as a dictionary index).
_REPEATED = ("ingest_file",)


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

    meta: pa.Table  # META_COLUMNS, in reading order, narrowed (almanac.dedup.held_meta)
    hashes: BandFile  # (rows, bands), band-major on local disk
    empty: npt.NDArray[np.bool_]  # rows whose text has no word


def read_signed(paths: list[Path], num_perm: int, bands: int, rows: int, batch_rows: int) -> SignedCorpus:
    """Band hashes of every signature file, read ``batch_rows`` signatures at a time (the signatures
    are never all in memory, and the band hashes go to a band-major file on local disk)."""
    held_schema = _held_schema(num_perm)
    total = sum(pq.ParquetFile(path).metadata.num_rows for path in paths)
    hashes = BandFile(total, bands)  # on disk: banding reads one band's column at a time
    empty = np.empty(total, dtype=bool)
    metas = MetaBuilder(total)  # each column one buffer of ``total`` rows
    start = 0
    for batch in _batches(paths, batch_rows):
        width = batch.schema.field("signature").type.byte_width
        if width != 4 * num_perm:
            raise ValueError(f"signatures have {width // 4} values, params say num_perm={num_perm}: re-sign")
        sigs = signature_matrix(batch.column("signature"), num_perm)
        stop = start + batch.num_rows
        hashes.write(start, band_hashes(sigs, bands, rows))
        empty[start:stop] = empty_rows(sigs)
        metas.put(start, _held(batch, held_schema))
        start = stop
    return SignedCorpus(metas.table(), hashes, empty)


def read_meta(paths: list[Path], num_perm: int, batch_rows: int) -> pa.Table:
    """The metadata :func:`read_signed` holds, without reading the signatures."""
    held_schema = _held_schema(num_perm)
    metas = MetaBuilder(sum(pq.ParquetFile(path).metadata.num_rows for path in paths))
    start = 0
    for path in paths:
        for batch in stream_batches(path, META_COLUMNS, batch_rows):
            metas.put(start, _held(batch, held_schema))
            start += batch.num_rows
    return metas.table()


def _held_schema(num_perm: int) -> pa.Schema:
    schema = signature_schema(num_perm)
    return pa.schema(
        [
            field.with_type(pa.dictionary(pa.int32(), field.type)) if name in _REPEATED else field
            for name in META_COLUMNS
            if name != "source"
            for field in [schema.field(name)]
        ]
        + [
            pa.field("source_head", pa.dictionary(pa.int32(), pa.string())),
            pa.field("source_tail", pa.string()),
        ]
    )


def _held(batch: pa.RecordBatch, held_schema: pa.Schema) -> pa.RecordBatch:
    # Parquet keeps second timestamps as milliseconds: back to the schema's unit
    plain = pa.schema(
        [
            field.with_type(field.type.value_type) if name in _REPEATED else field
            for name, field in zip(held_schema.names, held_schema, strict=True)
            if not name.startswith("source_")
        ]
    )
    held = batch.select([name for name in META_COLUMNS if name != "source"]).cast(plain)
    for name in _REPEATED:
        index = held.schema.get_field_index(name)
        held = held.set_column(index, held_schema.field(name), pc.dictionary_encode(held.column(index)))
    # ``file:offset`` as the file (a dictionary index: one of a few WARC names) and the offset's digits,
    # ~15 bytes an article instead of ~35; :func:`source_column` joins them back, the same string.
    source = batch.column(batch.schema.get_field_index("source"))
    parts = pc.extract_regex(source, r"^(?P<head>(?s:.*):)(?P<tail>[^:]*)$")
    head = pc.fill_null(pc.struct_field(parts, [0]), "")
    tail = pc.coalesce(pc.struct_field(parts, [1]), source)
    columns = [*held.columns, pc.dictionary_encode(head), tail]
    return pa.RecordBatch.from_arrays(columns, schema=held_schema)


def source_column(rows: pa.Table) -> pa.ChunkedArray:
    """The ``source`` (``file:offset``) of held metadata rows, as the signature file has it (a table that
    holds ``source`` itself, as the in-memory dedup's, gives that column)."""
    if "source" in rows.column_names:
        return rows.column("source")
    head = rows.column("source_head").cast(pa.string())
    return pc.binary_join_element_wise(head, rows.column("source_tail"), "")


def _batches(paths: list[Path], batch_rows: int) -> Iterator[pa.RecordBatch]:
    for path in paths:
        yield from stream_batches(path, None, batch_rows)


def stream_batches(path: Path, columns: list[str] | None, batch_rows: int) -> Iterator[pa.RecordBatch]:
    """``batch_rows`` rows at a time, reading column chunks through a 1 MB buffer on one thread: by
    default pyarrow reads whole row groups ahead (an ingest file is one row group per publish month)."""
    source = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
    yield from source.iter_batches(batch_size=batch_rows, columns=columns, use_threads=False)


def stream_groups(
    path: Path, columns: list[str], batch_rows: int, positions: npt.NDArray[np.integer[Any]]
) -> Iterator[tuple[int, pa.RecordBatch]]:
    """``(first row, batch)`` of only the row groups holding one of ``positions`` (rows of the file):
    an incremental dedup reads a few old texts, not the whole text column of every file holding one."""
    source = pq.ParquetFile(path, pre_buffer=False, buffer_size=1 << 20)
    sizes = [source.metadata.row_group(group).num_rows for group in range(source.num_row_groups)]
    starts = np.cumsum([0, *sizes])
    for group in np.unique(np.searchsorted(starts, positions, side="right") - 1):
        first = int(starts[group])
        for batch in source.iter_batches(
            batch_size=batch_rows, row_groups=[int(group)], columns=columns, use_threads=False
        ):
            yield first, batch
            first += batch.num_rows
