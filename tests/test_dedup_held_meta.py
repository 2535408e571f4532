"""The narrowed metadata dedup holds (ids as raw bytes, dictionaries), the bucket lookup banding uses to
find repeated hashes, the run keys of longer runs, and reading texts in storage order from numpy
locations. Expected values are worked out by hand; the lookups are checked against plain numpy."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pytest

from almanac.dedup.band_index import load_meta, meta_path, write_meta
from almanac.dedup.banding import _band_pair_keys, _merged
from almanac.dedup.corpus_io import Locations
from almanac.dedup.hash_buckets import Buckets
from almanac.dedup.held_meta import STORED_SCHEMA, held, id_strings, pack_ids, stored

HEX_A = "00ff10" + "a" * 26
HEX_B = "0f" * 16


def _stored_table(ids: list[str]) -> pa.Table:
    count = len(ids)
    return pa.table(
        {
            "id": ids,
            "month": ["2024-02", "2024-01", "2024-02"][:count],
            "publish_date": [datetime(2024, 2, 1 + day, tzinfo=UTC) for day in range(count)],
            "ingest_file": pa.array(["b.parquet", "a.parquet", "b.parquet"][:count]).dictionary_encode(),
            "ingest_row": [7, 0, 8][:count],
            "source_head": pa.array(["w.warc:"] * count).dictionary_encode(),
            "source_tail": ["10", "20", "30"][:count],
        },
        schema=STORED_SCHEMA,
    )


def test_hex_ids_are_held_as_their_sixteen_bytes() -> None:
    packed = pack_ids(pa.array([HEX_A, HEX_B]))
    assert packed is not None
    assert packed[0].tolist() == [0x00, 0xFF, 0x10] + [0xAA] * 13
    assert packed[1].tolist() == [0x0F] * 16
    table = held(_stored_table([HEX_A, HEX_B, HEX_A]))
    assert table.schema.field("id").type == pa.binary(16)
    assert table.schema.field("month").type == pa.dictionary(pa.int32(), pa.string())
    assert table.schema.field("ingest_row").type == pa.int32()
    assert id_strings(table.column("id")).to_pylist() == [HEX_A, HEX_B, HEX_A]
    # byte order is the hex strings' order: HEX_A (00ff..) sorts before HEX_B (0f0f..)
    assert pc.sort_indices(table.column("id")).to_pylist() == [0, 2, 1]


@pytest.mark.parametrize("odd", ["short", "A" * 32, "g" * 32, "0" * 31 + "é"])
def test_any_other_id_keeps_the_column_strings(odd: str) -> None:
    assert pack_ids(pa.array([HEX_A, odd])) is None
    table = held(_stored_table([HEX_A, odd, HEX_B]))
    assert table.schema.field("id").type == pa.string()
    assert table.column("id").to_pylist() == [HEX_A, odd, HEX_B]


@pytest.mark.parametrize("first", [0, 1])
def test_stored_gives_back_the_file_layout_with_buffers_of_its_own_rows(tmp_path: Path, first: int) -> None:
    original = _stored_table([HEX_A, HEX_B, HEX_A])
    table = held(original)
    assert stored(table).equals(original)
    # a crawl month sliced out of the held table is written as the same bytes as its rows held on their
    # own (the IPC writer would write a slice's buffers from its parent's first byte)
    (tmp_path / "sliced").mkdir()
    (tmp_path / "alone").mkdir()
    write_meta(tmp_path / "sliced", "m", table.slice(first, 2))
    write_meta(tmp_path / "alone", "m", held(original.slice(first, 2)))
    assert meta_path(tmp_path / "sliced", "m").read_bytes() == meta_path(tmp_path / "alone", "m").read_bytes()
    assert load_meta(tmp_path / "sliced", "m").equals(held(original.slice(first, 2)))


def test_buckets_find_exactly_the_repeated_values_and_their_positions() -> None:
    rng = np.random.default_rng(3)
    values = np.unique(rng.integers(0, 2**64 - 1, 5000, dtype=np.uint64))
    queries = np.concatenate([values[::3], rng.integers(0, 2**64 - 1, 5000, dtype=np.uint64)])
    expected = np.where(np.isin(queries, values), np.searchsorted(values, queries), -1)
    assert np.array_equal(Buckets(values).find(queries), expected)
    # small, unspread values all share bucket 0: the binary search takes over, same answer
    crowded = np.arange(0, 400, 2, dtype=np.uint64)
    asked = np.arange(0, 400, dtype=np.uint64)
    assert Buckets(crowded).find(asked).tolist() == [n // 2 if n % 2 == 0 else -1 for n in range(400)]


def test_a_run_of_three_gives_its_three_pairs() -> None:
    # hash 4 on rows 0, 2, 5; hash 6 on rows 1, 3: pairs (0,2) (0,5) (2,5) (1,3), keys i * 6 + j
    column = np.array([4, 6, 4, 6, 9, 4], dtype=np.uint64)
    found = _band_pair_keys(column, np.zeros(6, dtype=bool), 0, 1 << 64)
    assert sorted(found.tolist()) == [0 * 6 + 2, 0 * 6 + 5, 1 * 6 + 3, 2 * 6 + 5]


def test_locations_give_files_in_path_order_and_rows_ascending() -> None:
    meta = _stored_table([HEX_A, HEX_B, HEX_A])  # rows 0 and 2 in b.parquet (7, 8), row 1 in a.parquet
    locations = Locations.of(held(meta))
    assert locations.files == ["a.parquet", "b.parquet"]
    found = [
        (file, positions.tolist(), ords.tolist())
        for file, positions, ords in locations.by_file(np.array([2, 1, 0]))
    ]
    assert found == [("a.parquet", [0], [1]), ("b.parquet", [7, 8], [2, 0])]


def test_merged_keys_are_the_union() -> None:
    rng = np.random.default_rng(8)
    merged = np.zeros(0, dtype=np.int64)
    expected = np.zeros(0, dtype=np.int64)
    for _ in range(30):
        keys = rng.integers(0, 500, int(rng.integers(0, 60))).astype(np.int64)
        merged, expected = _merged(merged, keys), np.union1d(expected, keys)
        assert merged.tolist() == expected.tolist()
