"""Incremental dedup: adding a crawl month to an indexed build gives the bytes of a full rebuild.

The corpus is the bench's synthetic crawl (edited copies, re-crawled copies, articles published the
month before their crawl) plus two planted articles in the added crawl month, both published in the
first month, earlier than an article an earlier crawl already kept: a near-duplicate of it (so the
late-crawled earlier copy must now win its cluster) and an exact copy of another (same id, so the
kept copy of that id must switch to the new crawl's).
"""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from almanac.core.ids import content_id
from almanac.core.layout import read_month_articles
from almanac.core.schemas import ARTICLE_SCHEMA
from almanac.dedup.band_index import probe, probe_sorted
from almanac.dedup.near_duplicates import DedupConfig
from bench.dedup_scale import _append, make_crawl
from tests.support.dedup_runs import deduplicate, sign

CRAWLS = ["2024-01", "2024-02", "2024-03", "2024-04"]
# small batches, so signing, verification and writing all split into several pieces
CONFIG = DedupConfig(sign_batch_rows=64, text_batch_rows=50)


def _sign(crawls: list[str]) -> None:
    for crawl in crawls:
        sign(crawl, CONFIG)


def _run(crawls: list[str]) -> dict[str, Any]:
    metrics, run = deduplicate(crawls, crawls, CONFIG)
    return {"metrics": metrics, "run": run}


def _plant(project: Path) -> tuple[str, str, str]:
    """Two articles of crawl 2024-04 published on 2024-01-01, copies of two January articles kept by the
    first build (one edited, one exact); returns the ids of the two originals and of the edited copy."""
    january = read_month_articles("2024-01", project)
    january = january.filter(
        pc.greater(
            january.column("publish_date"),
            pa.scalar(datetime(2024, 1, 3, tzinfo=UTC), january.schema.field("publish_date").type),
        )
    )
    near, exact = january.slice(0, 1).to_pylist()[0], january.slice(1, 1).to_pylist()[0]
    words = str(near["text"]).split(" ")
    words[len(words) // 2] = "plantedword"
    rows: dict[str, list[Any]] = {name: [] for name in ARTICLE_SCHEMA.names}
    early = datetime(2024, 1, 1, 6, tzinfo=UTC)
    _append(rows, "https://late.example/copy", " ".join(words), early, "2024-04", 10**6)
    _append(rows, str(exact["url"]), str(exact["text"]), early, "2024-04", 10**6 + 1)
    path = project / "data/ingest/2024-04/articles/2024-01.parquet"
    pq.write_table(pa.table(rows, schema=ARTICLE_SCHEMA), path)
    return str(near["id"]), str(exact["id"]), content_id("https://late.example/copy", " ".join(words))


def _files(project: Path) -> dict[str, bytes]:
    folders = [
        project / "data/articles",
        project / "data/dedup/index",
        project / "data/dedup/rejects.parquet",
    ]
    found = {}
    for folder in folders:
        for path in [folder] if folder.is_file() else sorted(folder.rglob("*")):
            if path.is_file():
                found[path.relative_to(project).as_posix()] = path.read_bytes()
    return found


@pytest.mark.slow
def test_adding_a_crawl_month_gives_the_bytes_of_a_full_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    make_crawl(project, 1200, CRAWLS, seed=3)
    _sign(CRAWLS[:3])
    first = _run(CRAWLS[:3])
    assert "incremental" not in first["run"]  # no index yet: a full rebuild
    near_id, exact_id, late_id = _plant(project)
    _sign(CRAWLS[3:])
    old_parts = {
        path: os.stat(path).st_ino for path in sorted((project / "data/articles").rglob("*.parquet"))
    }
    added = _run(CRAWLS)
    # Written: January's part of crawl 2024-01 (its two originals lose to the planted copies) and the new
    # crawl's parts of January (planted), March (its 2% late articles) and April.
    assert added["run"] == {"incremental": 1, "parts_written": 4}
    new_parts = {"2024-01/2024-04.parquet", "2024-03/2024-04.parquet", "2024-04/2024-04.parquet"}
    assert {
        path.relative_to(project / "data/articles").as_posix()
        for path in (project / "data/articles").rglob("*.parquet")
        if path not in old_parts
    } == new_parts
    rewritten = [
        path.relative_to(project / "data/articles").as_posix()
        for path, inode in old_parts.items()
        if os.stat(path).st_ino != inode
    ]
    assert rewritten == ["2024-01/2024-01.parquet"]
    incremental = _files(project)

    shutil.rmtree(project / "data/dedup/index")
    shutil.rmtree(project / "data/articles")
    full = _run(CRAWLS)
    assert "incremental" not in full["run"]
    assert full["metrics"] == added["metrics"]
    assert _files(project).keys() == incremental.keys()
    assert [name for name, data in _files(project).items() if incremental[name] != data] == []

    # the late-crawled earlier copies win: the edited one keeps its cluster, the exact one its id
    january = read_month_articles("2024-01", project)
    planted = january.filter(pc.equal(january.column("source_file"), "CC-NEWS-2024-04.warc.gz"))
    assert sorted(planted.column("id").to_pylist()) == sorted([late_id, exact_id])
    assert near_id not in january.column("id").to_pylist()
    rejects = pq.read_table(project / "data/dedup/rejects.parquet").to_pylist()
    assert [(row["reason"], row["related_id"]) for row in rejects if row["id"] == near_id] == [
        ("near_duplicate", late_id)
    ]
    copies = [row for row in rejects if row["id"] == exact_id]
    assert [row["reason"] for row in copies] == ["duplicate_id"]
    assert copies[0]["source"].startswith("CC-NEWS-2024-01.warc.gz:")  # the first crawl's copy lost


def test_probe_finds_every_equal_hash() -> None:
    hashes = np.array([3, 5, 5, 5, 9], dtype=np.uint64)
    rows = np.array([40, 10, 11, 12, 7], dtype=np.int64)
    which, found = probe(hashes, rows, np.array([5, 4, 9, 3], dtype=np.uint64))
    assert list(zip(which.tolist(), found.tolist(), strict=True)) == [
        (0, 10),
        (0, 11),
        (0, 12),
        (2, 7),
        (3, 40),
    ]


def test_probe_of_sorted_queries_finds_what_a_scan_finds() -> None:
    rng = np.random.default_rng(5)
    hashes = np.sort(rng.integers(0, 40, 300).astype(np.uint64))  # long runs of equal hashes
    rows = rng.permutation(300).astype(np.int64)
    queries = np.sort(rng.integers(0, 60, 200).astype(np.uint64))  # many above the largest hash
    which, found = probe_sorted(hashes, rows, queries)
    scanned = sorted(
        (index, int(rows[position]))
        for index, query in enumerate(queries.tolist())
        for position in np.flatnonzero(hashes == query).tolist()
    )
    assert sorted(zip(which.tolist(), found.tolist(), strict=True)) == scanned
    assert len(scanned) > 200  # the runs were found whole, not one row each
    empty = np.zeros(0, dtype=np.uint64)
    assert [len(part) for part in probe_sorted(empty, np.zeros(0, dtype=np.int64), queries)] == [0, 0]
