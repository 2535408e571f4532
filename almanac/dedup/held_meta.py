"""The per-article metadata dedup holds for every signed article, in as few bytes as the values allow.

At 10M articles this table is most of the ``dedup`` process's memory, so it is built column by column
into arrays sized once from the signature files' row counts (one buffer per column, no per-batch chunks
left behind in the allocator's pages) and narrowed where the values allow:

- ``id``: a content hash of 32 lower-case hex characters is held as its 16 raw bytes
  (``fixed_size_binary(16)``; byte order is the hex strings' order, so sorts and comparisons agree); any
  other id keeps the column a string column (:func:`id_strings` gives strings either way);
- ``month``, ``ingest_file`` and ``source_head`` (the ``file:`` of ``source``): a dictionary index each;
- ``ingest_row``: int32 (a row of an ingest file is below the number of rows signed, < 2^31).

The band index's ``.meta.arrow`` files keep the previous layout (:func:`stored`, :func:`held`), so their
bytes do not depend on how the stage holds the table.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from almanac.core.schemas import TIMESTAMP

ID_BYTES = 16
_HEX = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_NIBBLE = np.full(256, 255, dtype=np.uint8)
_NIBBLE[_HEX] = np.arange(16, dtype=np.uint8)
_DICTIONARY = pa.dictionary(pa.int32(), pa.string())
_PIECE = 1 << 20  # ids turned back into strings at once (32 bytes each)

# The layout of the band index's metadata files (and of the held table before it was narrowed).
STORED_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("month", pa.string(), nullable=False),
        pa.field("publish_date", TIMESTAMP, nullable=False),
        pa.field("ingest_file", _DICTIONARY, nullable=False),
        pa.field("ingest_row", pa.int64(), nullable=False),
        pa.field("source_head", _DICTIONARY),
        pa.field("source_tail", pa.string()),
    ]
)
# Columns held as one dictionary for the whole table.
_CODED = ("month", "ingest_file", "source_head")


def pack_ids(ids: pa.Array) -> npt.NDArray[np.uint8] | None:
    """``(n, 16)`` raw bytes of ids that are all 32 lower-case hex characters, else None."""
    count = len(ids)
    if not count:
        return np.zeros((0, ID_BYTES), dtype=np.uint8)
    if ids.null_count or not pa.types.is_string(ids.type):
        return None
    offsets = np.frombuffer(ids.buffers()[1], dtype=np.int32, count=ids.offset + count + 1)[ids.offset :]
    if not np.all(np.diff(offsets) == 2 * ID_BYTES):
        return None
    chars = np.frombuffer(ids.buffers()[2], dtype=np.uint8, count=int(offsets[-1]))[int(offsets[0]) :]
    nibbles = _NIBBLE[chars].reshape(count, 2 * ID_BYTES)
    if np.any(nibbles == 255):
        return None
    packed = (nibbles[:, 0::2] << 4) | nibbles[:, 1::2]
    return np.asarray(packed, dtype=np.uint8)


def _id_array(raw: npt.NDArray[np.uint8]) -> pa.Array:
    return pa.FixedSizeBinaryArray.from_buffers(pa.binary(ID_BYTES), len(raw), [None, pa.py_buffer(raw)])


def _hex(raw: npt.NDArray[np.uint8]) -> pa.Array:
    count = len(raw)
    chars = np.empty((count, 2 * ID_BYTES), dtype=np.uint8)
    chars[:, 0::2] = _HEX[raw >> 4]
    chars[:, 1::2] = _HEX[raw & 15]
    offsets = np.arange(0, (count + 1) * 2 * ID_BYTES, 2 * ID_BYTES, dtype=np.int32)
    return pa.StringArray.from_buffers(count, pa.py_buffer(offsets), pa.py_buffer(chars))


def id_strings(ids: pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    """Ids as strings, whether held as raw bytes or as strings already (then the same column)."""
    chunks = ids.chunks if isinstance(ids, pa.ChunkedArray) else [ids]
    if not pa.types.is_fixed_size_binary(ids.type):
        return pa.chunked_array(chunks, ids.type)
    out: list[pa.Array] = []
    for chunk in chunks:
        raw = np.frombuffer(chunk.buffers()[1], dtype=np.uint8, count=(chunk.offset + len(chunk)) * ID_BYTES)
        raw = raw[chunk.offset * ID_BYTES :].reshape(len(chunk), ID_BYTES)
        out.extend(_hex(raw[start : start + _PIECE]) for start in range(0, len(chunk), _PIECE))
    return pa.chunked_array(out, pa.string())


def strings(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """A dictionary column's values as plain strings (other columns as they are)."""
    return column.cast(column.type.value_type) if pa.types.is_dictionary(column.type) else column


class _Codes:
    """One dictionary for a whole column, filled batch by batch (first appearance order)."""

    def __init__(self, total: int) -> None:
        self.codes = np.empty(total, dtype=np.int32)
        self.values: dict[str, int] = {}

    def put(self, start: int, column: pa.Array) -> None:
        encoded = pc.dictionary_encode(column)
        local = np.array(
            [self.values.setdefault(value, len(self.values)) for value in encoded.dictionary.to_pylist()]
            or [0],
            dtype=np.int32,
        )
        indices = encoded.indices.to_numpy(zero_copy_only=False)
        self.codes[start : start + len(column)] = local[indices]

    def array(self) -> pa.Array:
        dictionary = pa.array(list(self.values), pa.string())
        return pa.DictionaryArray.from_arrays(pa.array(self.codes), dictionary)


class MetaBuilder:
    """The held table of ``total`` rows, written batch by batch in reading order (:meth:`put`), each
    column into a buffer allocated once."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.ids: npt.NDArray[np.uint8] | None = np.empty((total, ID_BYTES), dtype=np.uint8)
        self.id_chunks: list[pa.Array] = []  # the ids as strings, once one of them is not a hex digest
        self.coded = {name: _Codes(total) for name in _CODED}
        self.dates = np.empty(total, dtype=np.int64)
        self.rows = np.empty(total, dtype=np.int32 if total < 2**31 else np.int64)
        self.tails: list[pa.Array] = []

    def put(self, start: int, batch: pa.RecordBatch) -> None:
        """``batch`` (STORED_SCHEMA's columns and types) as rows ``start ..`` of the table."""
        stop = start + batch.num_rows
        ids = batch.column("id")
        packed = pack_ids(ids) if self.ids is not None else None
        if self.ids is not None and packed is None:  # from here on, strings for every id
            self.id_chunks = [_hex(self.ids[:start])]
            self.ids = None
        if self.ids is not None and packed is not None:
            self.ids[start:stop] = packed
        else:
            self.id_chunks.append(ids)
        for name in _CODED:
            self.coded[name].put(start, strings(batch.column(name)))
        dates = batch.column("publish_date").cast(pa.int64()).to_numpy(zero_copy_only=False)
        self.dates[start:stop] = dates
        self.rows[start:stop] = batch.column("ingest_row").to_numpy(zero_copy_only=False)
        self.tails.append(batch.column("source_tail"))

    def table(self) -> pa.Table:
        ids = (
            _id_array(self.ids)
            if self.ids is not None
            else pa.concat_arrays(self.id_chunks or [pa.array([], pa.string())])
        )
        columns = {
            "id": ids,
            "month": self.coded["month"].array(),
            "publish_date": pa.array(self.dates).view(TIMESTAMP),
            "ingest_file": self.coded["ingest_file"].array(),
            "ingest_row": pa.array(self.rows),
            "source_head": self.coded["source_head"].array(),
            "source_tail": pa.concat_arrays(self.tails) if self.tails else pa.array([], pa.string()),
        }
        self.tails = []
        return pa.table(columns)


def held(table: pa.Table) -> pa.Table:
    """A table of STORED_SCHEMA (a band index metadata file) as dedup holds it."""
    builder = MetaBuilder(table.num_rows)
    start = 0
    for batch in table.to_batches():
        builder.put(start, batch)
        start += batch.num_rows
    return builder.table()


def stored(table: pa.Table) -> pa.Table:
    """A held table in STORED_SCHEMA (ids as strings, the month plain, rows int64)."""
    columns = [
        id_strings(table.column("id")),
        strings(table.column("month")),
        _owned(table.column("publish_date")),
        table.column("ingest_file"),
        _owned(table.column("ingest_row").cast(pa.int64())),
        table.column("source_head"),
        _owned(table.column("source_tail")),
    ]
    return pa.table(columns, schema=STORED_SCHEMA)


def _owned(column: pa.ChunkedArray) -> pa.ChunkedArray:
    """Each chunk with buffers of its own rows only: the IPC writer writes a slice's buffers from its
    parent's first byte and may write them to its parent's end, so a crawl month's metadata file would
    depend on the rows around it in the held table."""
    return pa.chunked_array([_own(chunk) for chunk in column.chunks], column.type)


def _own(chunk: pa.Array) -> pa.Array:
    if chunk.null_count:
        return chunk
    count = len(chunk)
    if not pa.types.is_string(chunk.type):  # fixed width: dates, rows
        width = chunk.type.bit_width // 8
        data = chunk.buffers()[1].slice(chunk.offset * width, count * width)
        return pa.Array.from_buffers(chunk.type, count, [None, data])
    offsets = np.frombuffer(chunk.buffers()[1], dtype=np.int32, count=chunk.offset + count + 1)[
        chunk.offset :
    ]
    values = chunk.buffers()[2][int(offsets[0]) : int(offsets[-1])]
    return pa.StringArray.from_buffers(count, pa.py_buffer(offsets - offsets[0]), values)


def unify(tables: list[pa.Table]) -> pa.Table:
    """Held tables as one: when their id or row types differ, the wider type for all."""
    if len({(table.schema.field("id").type, table.schema.field("ingest_row").type) for table in tables}) > 1:
        tables = [
            table.set_column(0, "id", id_strings(table.column("id"))).set_column(
                4, "ingest_row", table.column("ingest_row").cast(pa.int64())
            )
            for table in tables
        ]
    return pa.concat_tables(tables)
