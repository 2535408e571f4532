"""The dedup stage's memory-saving forms give the same results as the in-memory ones: reject rows
spilled to disk, band columns read into one buffer, band index segments written without a memory map,
and first copies / clustering order taken from a stable sort of the whole metadata table."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from almanac.core.rejects import TableLedger
from almanac.core.schemas import REJECT_SCHEMA
from almanac.dedup.band_index import MonthSlice, load_segment, write_segments
from almanac.dedup.banding import BandFile, BandMatrix
from almanac.dedup.reject_spill import SpilledLedger
from almanac.dedup.survivors import clustered_rows


def _rejects(rows: list[tuple[str, str, str, str, str | None]]) -> pa.Table:
    return pa.table(
        {
            "id": [row[0] for row in rows],
            "stage": ["dedup"] * len(rows),
            "reason": [row[1] for row in rows],
            "detail": [row[2] for row in rows],
            "source": [row[3] for row in rows],
            "related_id": [row[4] for row in rows],
        },
        schema=REJECT_SCHEMA,
    )


def test_spilled_rejects_are_the_in_memory_ledgers_table_and_counts() -> None:
    # Two rows tie on (source, id, reason) and differ in detail: the first given must stay first.
    batches = [
        _rejects([("b", "near_duplicate", "second tie", "f:1", "a"), ("a", "duplicate_id", "x", "f:9", "a")]),
        _rejects([]),
        _rejects([("b", "near_duplicate", "first tie", "f:1", "c"), ("c", "out", "y", "e:5", None)]),
    ]
    memory, spilled = TableLedger("dedup"), SpilledLedger("dedup")
    for ledger in (memory, spilled):
        ledger.items_in = 5
        ledger.items_out = 0
        ledger.reject("d", "out", "python reject", "a:0")
        for table in batches:
            ledger.reject_table(table)
    assert spilled.tables == []  # nothing held in memory
    assert spilled.rejected == memory.rejected == 5
    assert spilled.rejected_by_reason == {"duplicate_id": 1, "near_duplicate": 2, "out": 2}
    assert spilled.metrics() == memory.metrics()
    table = spilled.rejects_table()
    assert table.equals(memory.rejects_table())
    # by source first: a:0, e:5, f:1 (the tie in the order given), f:9
    assert table.column("detail").to_pylist() == ["python reject", "y", "second tie", "first tie", "x"]
    assert spilled.rejects_table().equals(table)  # may be asked twice
    spilled.close()


def test_spilled_ledger_checks_the_stage_of_its_rows() -> None:
    table = _rejects([("a", "r", "d", "s", None)]).set_column(
        1, REJECT_SCHEMA.field("stage"), pa.array(["other"], pa.string())
    )
    with pytest.raises(ValueError, match="stages"):
        SpilledLedger("dedup").reject_table(table)


def test_band_file_columns_are_writable_copies_of_what_was_written() -> None:
    hashes = np.arange(30, dtype=np.uint64).reshape(10, 3) * np.uint64(2**61 + 7)
    stored = BandFile(10, 3)
    stored.write(0, hashes[:4])
    stored.write(4, hashes[4:])
    column = stored.column(2)
    assert column.dtype == np.uint64 and column.flags.writeable
    assert column.tolist() == hashes[:, 2].tolist()
    column[0] = 1  # a private buffer: the next read is unchanged
    assert stored.column(2).tolist() == hashes[:, 2].tolist()
    stored.close()


def test_band_index_segments_hold_each_bands_sorted_hashes_and_rows(tmp_path: Path) -> None:
    # month a: rows 0-2 (row 1 empty), month b: rows 3-4, month c: none non-empty
    hashes = np.array([[5, 1], [9, 9], [2, 7], [8, 3], [4, 6], [1, 1]], dtype=np.uint64)
    empty = np.array([False, True, False, False, False, True])
    months = [MonthSlice("a", 0, 3), MonthSlice("b", 3, 5), MonthSlice("c", 5, 6)]
    write_segments(tmp_path, months, BandMatrix(hashes), empty)
    first = load_segment(tmp_path, "a")
    assert first.hashes.tolist() == [[2, 5], [1, 7]]  # band 0: 5 (row 0), 2 (row 2); band 1: 1, 7
    assert first.rows.tolist() == [[2, 0], [0, 2]]
    second = load_segment(tmp_path, "b")
    assert second.hashes.tolist() == [[4, 8], [3, 6]]
    assert second.rows.tolist() == [[1, 0], [0, 1]]
    third = load_segment(tmp_path, "c")
    assert third.hashes.shape == (2, 0)


def test_clustered_rows_keep_the_earliest_copy_of_an_id_and_order_by_date_then_id() -> None:
    day = [datetime(2024, 1, d, tzinfo=UTC) for d in range(1, 6)]
    meta = pa.table(
        {
            "id": ["x", "y", "x", "z", "y", "w", "x"],
            "month": ["2024-01", "2024-01", "2024-01", "2023-12", "2024-01", "2024-01", "2024-01"],
            "publish_date": [day[2], day[1], day[0], day[0], day[1], day[1], day[0]],
            "source": [f"f:{row}" for row in range(7)],
        }
    )
    ledger = TableLedger("dedup")
    rows, in_scope = clustered_rows(meta, ["2024-01"], ledger)
    # x: rows 2 and 6 share the earliest date, row 2 was read first; y: rows 1 and 4 tie, row 1 stays.
    # Then by date: x (day 0), then w and y (day 1, by id).
    assert rows.tolist() == [2, 5, 1]
    assert in_scope == 6
    assert ledger.rejected_by_reason == {"duplicate_id": 3, "publish_month_out_of_scope": 1}
    copies = ledger.rejects_table().filter(
        pa.compute.equal(ledger.rejects_table().column("reason"), "duplicate_id")
    )
    assert sorted(copies.column("source").to_pylist()) == ["f:0", "f:4", "f:6"]
