"""The corpus as parts keyed by crawl month: what an added crawl month writes, removes and leaves alone.

A hand-made corpus of three crawl months (a few 200-word articles each, unrelated texts) where the added
crawl month 2024-03 brings: the first article of March (March had none: its empty part goes), a
near-duplicate of the only late January article crawled in February but published earlier (it wins, so
February's January part loses its one row and goes), and an exact copy of a January article published
earlier (same id: the kept copy moves to the new crawl's part, so January's own part is rewritten).
Every expected file and order below is worked out from those dates by hand.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from almanac.core.ids import content_id
from almanac.core.layout import month_files, read_corpus, read_month_articles
from almanac.core.schemas import ARTICLE_SCHEMA
from almanac.dedup import file_digests
from almanac.dedup.corpus_io import corpus_parts
from almanac.dedup.near_duplicates import DedupConfig
from almanac.futuresim.own_article import article_texts
from bench.dedup_scale import _append
from tests.support.dedup_runs import deduplicate, sign

MONTHS = ["2024-01", "2024-02", "2024-03"]
CONFIG = DedupConfig(sign_batch_rows=2, text_batch_rows=2)  # tiny batches: every path splits
WORDS = [f"w{number}" for number in range(20_000)]


def _text(seed: int) -> str:
    return " ".join(random.Random(seed).choices(WORDS, k=200))


def _edited(text: str) -> str:
    words = text.split(" ")
    words[100] = "plantedword"
    return " ".join(words)


# name -> (crawl month, url, text, publish day)
ARTICLES: dict[str, tuple[str, str, str, datetime]] = {
    "A": ("2024-01", "https://a.example/a", _text(1), datetime(2024, 1, 10, tzinfo=UTC)),
    "B": ("2024-01", "https://b.example/b", _text(2), datetime(2024, 1, 20, tzinfo=UTC)),
    "D": ("2024-01", "https://d.example/d", _text(4), datetime(2024, 1, 15, tzinfo=UTC)),
    "E": ("2024-02", "https://e.example/e", _text(5), datetime(2024, 2, 5, tzinfo=UTC)),
    "F": ("2024-02", "https://f.example/f", _text(6), datetime(2024, 1, 25, tzinfo=UTC)),
    "G": ("2024-03", "https://g.example/g", _text(7), datetime(2024, 3, 3, tzinfo=UTC)),
    "H": ("2024-03", "https://h.example/h", _edited(_text(6)), datetime(2024, 1, 2, tzinfo=UTC)),
    "I": ("2024-03", "https://b.example/b", _text(2), datetime(2024, 1, 1, tzinfo=UTC)),  # B's id
}


def _id(name: str) -> str:
    _crawl, url, text, _day = ARTICLES[name]
    return content_id(url, text)


def _write_crawl(crawl: str) -> None:
    by_month: dict[str, dict[str, list[Any]]] = {}
    for serial, (name, (month_crawled, url, text, day)) in enumerate(ARTICLES.items()):
        if month_crawled == crawl:
            rows = by_month.setdefault(day.strftime("%Y-%m"), {field: [] for field in ARTICLE_SCHEMA.names})
            _append(rows, url, text, day, crawl, serial)
            del name
    for month, rows in by_month.items():
        path = Path("data/ingest") / crawl / "articles" / f"{month}.parquet"
        path.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table(rows, schema=ARTICLE_SCHEMA), path)
    sign(crawl, CONFIG)


def _run(crawls: list[str]) -> dict[str, float]:
    return deduplicate(crawls, MONTHS, CONFIG)[1]


def _files() -> dict[str, bytes]:
    found = {}
    for folder in (Path("data/articles"), Path("data/dedup/index")):
        for path in sorted(folder.rglob("*")):
            if path.is_file():
                found[path.as_posix()] = path.read_bytes()
    found["rejects"] = Path("data/dedup/rejects.parquet").read_bytes()
    return found


def _parts() -> dict[str, list[str]]:
    """Each part file's article ids, in the order stored."""
    return {
        path.relative_to("data/articles").as_posix(): pq.read_table(path).column("id").to_pylist()
        for path in sorted(Path("data/articles").rglob("*.parquet"))
    }


def _built_two_crawls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """January's and February's crawls written and deduplicated from scratch (a full build, no index yet)."""
    monkeypatch.chdir(tmp_path)
    _write_crawl("2024-01")
    _write_crawl("2024-02")
    assert "incremental" not in _run(["2024-01", "2024-02"])


@pytest.mark.slow
def test_an_added_crawl_month_writes_only_the_parts_whose_rows_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _built_two_crawls(tmp_path, monkeypatch)
    assert _parts() == {
        "2024-01/2024-01.parquet": [_id("A"), _id("B"), _id("D")],  # storage order, not date order
        "2024-01/2024-02.parquet": [_id("F")],
        "2024-02/2024-02.parquet": [_id("E")],
        "2024-03/empty.parquet": [],  # a month without articles still has its folder
    }
    inodes = {path: os.stat(path).st_ino for path in Path("data/articles").rglob("*.parquet")}

    _write_crawl("2024-03")
    added = _run(MONTHS)
    # written: January's own part (B's copy moves away), the new crawl's January and March parts
    assert added == {"incremental": 1, "parts_written": 3}
    assert _parts() == {
        "2024-01/2024-01.parquet": [_id("A"), _id("D")],
        "2024-01/2024-03.parquet": [_id("H"), _id("I")],
        "2024-02/2024-02.parquet": [_id("E")],
        "2024-03/2024-03.parquet": [_id("G")],
    }
    february = Path("data/articles/2024-02/2024-02.parquet")
    assert os.stat(february).st_ino == inodes[february]  # untouched
    # a month is read as one table in (publish date, id) order, whichever parts hold it
    assert read_month_articles("2024-01").column("id").to_pylist() == [_id(n) for n in "IHAD"]
    assert read_corpus(MONTHS).column("id").to_pylist() == [_id(n) for n in "IHADEG"]
    assert article_texts(Path("data/articles"), [_id("H"), _id("G")]) == {
        _id("H"): ARTICLES["H"][2],
        _id("G"): ARTICLES["G"][2],
    }
    incremental = _files()

    shutil.rmtree("data/dedup/index")
    shutil.rmtree("data/articles")
    assert "incremental" not in _run(MONTHS)
    assert _files() == incremental  # the same bytes as a full rebuild, index and rejects included


def test_parts_follow_crawl_months_and_an_empty_month_gets_one_empty_part() -> None:
    # metadata rows 0-2 from crawl 2024-01, rows 3-5 from crawl 2024-02
    meta = pa.table({"month": ["2024-01", "2024-01", "2024-02", "2024-01", "2024-02", "2024-02"]})
    parts = corpus_parts(meta, pa.array([5, 0, 3, 2]).to_numpy(), MONTHS, [("2024-01", 0), ("2024-02", 3)])
    assert [(part.key, part.rows.tolist()) for part in parts] == [
        ("2024-01/2024-01", [0]),
        ("2024-01/2024-02", [3]),
        ("2024-02/2024-01", [2]),
        ("2024-02/2024-02", [5]),
        ("2024-03/empty", []),
    ]


def test_a_month_of_parts_reads_in_date_then_id_order(tmp_path: Path) -> None:
    def rows(*names: str) -> pa.Table:
        table: dict[str, list[Any]] = {field: [] for field in ARTICLE_SCHEMA.names}
        for name in names:
            _crawl, url, text, day = ARTICLES[name]
            _append(table, url, text, day, "2024-01", 0)
        return pa.table(table, schema=ARTICLE_SCHEMA)

    folder = tmp_path / "data/articles/2024-01"
    folder.mkdir(parents=True)
    pq.write_table(rows("B", "A"), folder / "2024-01.parquet")
    pq.write_table(rows("D", "F"), folder / "2024-02.parquet")
    # A 01-10, D 01-15, B 01-20, F 01-25
    assert read_month_articles("2024-01", tmp_path).column("id").to_pylist() == [_id(n) for n in "ADBF"]
    # a hand-made single-file month is one part, read in its own order
    pq.write_table(rows("B", "A"), tmp_path / "data/articles/2024-02.parquet")
    assert month_files("2024-02", tmp_path) == [tmp_path / "data/articles/2024-02.parquet"]
    assert read_month_articles("2024-02", tmp_path).column("id").to_pylist() == [_id("B"), _id("A")]
    with pytest.raises(FileNotFoundError, match="2024-03"):
        read_month_articles("2024-03", tmp_path)


def test_a_remembered_digest_is_read_again_once_the_file_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "signatures.parquet"
    path.write_bytes(b"first")
    first = file_digests.digest(path)
    assert first == hashlib.sha256(b"first").hexdigest()[:32]
    file_digests.remember()
    monkeypatch.setattr(file_digests, "_loaded", [])  # as a new process: the digests come from the file
    assert file_digests.cache_path().is_file()

    def unread(*_args: object) -> None:
        raise AssertionError("a remembered file was read again")

    monkeypatch.setattr(hashlib, "file_digest", unread)
    assert file_digests.digest(path) == first
    monkeypatch.undo()
    # same size, mtime set back as a copy tool would: the ctime still changed, so the file is read
    status = os.stat(path)
    path.write_bytes(b"other")
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))
    assert file_digests.digest(path) == hashlib.sha256(b"other").hexdigest()[:32]


@pytest.mark.slow
def test_a_re_signed_old_crawl_month_means_a_full_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _built_two_crawls(tmp_path, monkeypatch)
    # February's crawl read again with E published a day later: its ingest and signature files change
    crawl, url, text, _day = ARTICLES["E"]
    monkeypatch.setitem(ARTICLES, "E", (crawl, url, text, datetime(2024, 2, 6, tzinfo=UTC)))
    _write_crawl("2024-02")
    _write_crawl("2024-03")
    assert "incremental" not in _run(MONTHS)  # the remembered digests of February no longer match
    rebuilt = _files()
    shutil.rmtree("data/dedup/index")
    shutil.rmtree("data/articles")
    assert "incremental" not in _run(MONTHS)
    assert _files() == rebuilt
