"""The dedup stage's work gives the same bytes on one core and on several; the corpus writer keeps runs
of rows as slices of the ingest batch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from almanac.core.parallel import RayConfig
from almanac.core.rejects import TableLedger
from almanac.dedup.corpus_io import StoredTexts, _runs, corpus_parts, write_parts
from almanac.dedup.near_duplicates import DedupConfig
from almanac.dedup.survivors import select_survivors
from tests.test_dedup_streaming import _corpus, _ingest, sign_months

SERIAL = RayConfig(executor="serial")


def test_runs_are_slices_of_consecutive_rows() -> None:
    batch = pa.record_batch({"x": pa.array(range(10, 20))})
    pieces = _runs(batch, np.array([0, 1, 2, 5, 6, 9]))
    # three runs: rows 0-2, 5-6 and 9, each a slice of the batch (no copy)
    assert [piece.column(0).to_pylist() for piece in pieces] == [[10, 11, 12], [15, 16], [19]]
    assert [piece.column(0).offset for piece in pieces] == [0, 5, 9]
    assert [p.column(0).to_pylist() for p in _runs(batch, np.array([4]))] == [[14]]


def _run(root: Path, crawls: list[Path], workers: int) -> tuple[dict[str, bytes], pa.Table, np.ndarray]:
    months = ["2025-04", "2025-05"]
    config = DedupConfig(text_batch_rows=2, sign_batch_rows=3, workers=workers)
    paths, signed = sign_months(root, crawls, months, config)
    ledger = TableLedger("dedup")
    texts = StoredTexts(signed.meta, config.text_batch_rows)
    select = config.select
    assert select.workers == workers
    selection = select_survivors(
        signed.meta, signed.hashes, signed.empty, months, select, texts, ledger, SERIAL
    )
    starts = [("2025-04", 0), ("2025-05", pq.ParquetFile(paths[0]).metadata.num_rows)]
    parts = corpus_parts(signed.meta, selection.kept, months, starts)
    write_parts(signed.meta, parts, root / "articles", config.text_batch_rows, select.workers)
    written = {
        path.relative_to(root).as_posix(): path.read_bytes()
        for path in sorted((root / "articles").rglob("*.parquet"))
    }
    return written, ledger.rejects_table(), selection.verified


def test_several_workers_write_the_bytes_of_one(tmp_path: Path) -> None:
    crawls = _ingest(tmp_path, _corpus())
    one = _run(tmp_path / "one", crawls, workers=1)
    several = _run(tmp_path / "several", crawls, workers=3)
    assert one[0] == several[0] and len(one[0]) >= 2  # every corpus part, byte for byte
    assert one[1].equals(several[1])  # the same rejects, in the same order
    assert np.array_equal(one[2], several[2])  # the same verified pairs and scores
    assert one[1].num_rows == 5  # 1 out of scope, 1 exact copy, 3 near duplicates (as hand-built)
