"""Streaming dedup: numpy banding against datasketch, signature files, and the file-based path against
the in-memory one (same kept rows, same rejects) with batches small enough to split every step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from almanac.core.io import write_month_partitions
from almanac.core.layout import articles_dir, month_files, read_month_articles
from almanac.core.parallel import RayConfig
from almanac.core.rejects import TableLedger
from almanac.core.schemas import ARTICLE_SCHEMA, table_from_rows
from almanac.dedup import lsh
from almanac.dedup.banding import (
    BandFile,
    band_groups,
    band_hashes,
    candidate_pairs,
    empty_rows,
    shard_bounds,
    shard_pairs,
)
from almanac.dedup.corpus_io import StoredTexts, corpus_parts, write_parts
from almanac.dedup.minhash import SENTINEL, MinHashConfig, jaccard, shingle_sets, shingles, signatures
from almanac.dedup.near_duplicates import DedupConfig, deduplicate, record_selection
from almanac.dedup.signature_store import SignedCorpus, read_signed, sign_crawl_month, signature_matrix
from almanac.dedup.survivors import select_survivors
from almanac.dedup.verify import hash_jaccard
from tests.test_dedup import article, edit, random_text

SERIAL = RayConfig(executor="serial")


def _colliding_signatures(seed: int, count: int = 300, num_perm: int = 16) -> np.ndarray:
    """Random signatures over a tiny alphabet, so many rows share whole bands by chance."""
    rng = np.random.default_rng(seed)
    sigs = rng.integers(0, 3, size=(count, num_perm)).astype(np.uint32)
    sigs[-3:] = SENTINEL  # texts without words: never candidates, even with each other
    return sigs


@pytest.mark.parametrize(("bands", "rows"), [(4, 4), (8, 2), (3, 5)])
def test_numpy_banding_finds_exactly_datasketchs_candidates(bands: int, rows: int) -> None:
    sigs = _colliding_signatures(bands * 10 + rows)
    expected = lsh.candidate_pairs(sigs, bands, rows)
    assert len(expected) > 100  # the alphabet makes plenty of shared bands
    found = candidate_pairs(band_hashes(sigs, bands, rows), empty_rows(sigs), 1, SERIAL)
    assert [tuple(pair) for pair in found.tolist()] == expected


def test_band_shards_are_pure_and_their_union_is_the_whole() -> None:
    sigs = _colliding_signatures(7)
    hashes, empty = band_hashes(sigs, 4, 4), empty_rows(sigs)
    whole = shard_pairs(hashes, empty, 0, 1 << 64)
    parts = [shard_pairs(hashes, empty, low, high) for low, high in shard_bounds(5)]
    assert all(
        np.array_equal(part, shard_pairs(hashes, empty, *bound))
        for part, bound in zip(parts, shard_bounds(5), strict=True)
    )
    union = np.unique(np.concatenate(parts), axis=0)
    assert np.array_equal(union, whole)
    assert np.array_equal(candidate_pairs(hashes, empty, 5, SERIAL), whole)
    assert np.array_equal(candidate_pairs(hashes, empty, 1, SERIAL, workers=3), whole)
    # the same hashes stored band-major on disk, written in two pieces, give the same pairs
    stored = BandFile(len(hashes), 4)
    stored.write(0, hashes[:100])
    stored.write(100, hashes[100:])
    assert all(np.array_equal(stored.column(band), hashes[:, band]) for band in range(4))
    assert np.array_equal(candidate_pairs(stored, empty, 1, SERIAL, workers=2), whole)
    assert np.array_equal(candidate_pairs(stored, empty, 3, SERIAL), whole)
    stored.close()
    assert shard_bounds(2) == [(0, 1 << 63), (1 << 63, 1 << 64)]
    # a band shard is given only its own bands, and every band belongs to exactly one shard
    assert [group.tolist() for group in band_groups(7, 3)] == [[0, 3, 6], [1, 4], [2, 5]]
    assert [group.tolist() for group in band_groups(2, 5)] == [[0], [1]]


def test_banding_pairs_every_member_of_a_run_with_every_later_one() -> None:
    # rows 0, 2, 3, 5 share band 0; rows 1 and 4 share band 1; row 6 shares nothing; row 3 is excluded
    hashes = np.array([[7, 1], [8, 2], [7, 3], [7, 4], [9, 2], [7, 5], [10, 6]], dtype=np.uint64)
    excluded = np.zeros(7, dtype=bool)
    excluded[3] = True
    found = candidate_pairs(hashes, excluded, 1, SERIAL)
    assert found.tolist() == [[0, 2], [0, 5], [1, 4], [2, 5]]
    assert candidate_pairs(hashes[:1], excluded[:1], 1, SERIAL).shape == (0, 2)


def test_band_hashes_follow_band_values_and_band_position() -> None:
    sigs = np.array([[1, 2, 3, 4], [1, 2, 9, 9], [3, 4, 1, 2]], dtype=np.uint32)
    hashes = band_hashes(sigs, bands=2, rows=2)
    assert hashes.shape == (3, 2) and hashes.dtype == np.uint64
    assert hashes[0, 0] == hashes[1, 0]  # same first band
    assert hashes[0, 1] != hashes[1, 1]
    # the values (3, 4) are band 1 of row 0 and band 0 of row 2: different bands never match
    assert hashes[0, 1] != hashes[2, 0]
    with pytest.raises(ValueError, match="exceeds num_perm"):
        band_hashes(sigs, bands=3, rows=2)


def _corpus() -> list[dict[str, object]]:
    """Two crawl months: a near-duplicate across them, a re-crawled copy, an out-of-scope article."""
    texts = [random_text(seed) for seed in range(8)]
    april = [article(texts[i], f"https://s{i}.example/a", day=1 + i, month="2025-04") for i in range(4)]
    may = [article(texts[i], f"https://s{i}.example/a", day=1 + i) for i in range(4, 8)]
    may.append(article(edit(texts[1], 0.02, seed=3), "https://copy.example/a", day=20))  # of an April text
    may.append(article(edit(texts[5], 0.03, seed=4), "https://copy2.example/a", day=2))  # earlier than s5
    may.append(article(edit(texts[5], 0.02, seed=5), "https://copy3.example/a", day=28))
    again = dict(april[2])
    again["source_file"], again["source_offset"] = "g.warc.gz", 7  # April's article re-crawled in May
    may.append(again)
    may.append(article(random_text(99), "https://old.example/a", day=3, month="2025-03"))
    return [*april, *may]


def _ingest(root: Path, rows: list[dict[str, object]]) -> list[Path]:
    """Crawl month 2025-04 holds the April rows, 2025-05 the rest, partitioned by publish month."""
    table = table_from_rows(rows, ARTICLE_SCHEMA)
    crawls = []
    for crawl, part in (("2025-04", table.slice(0, 4)), ("2025-05", table.slice(4))):
        directory = root / "ingest" / crawl / "articles"
        write_month_partitions(part, directory, None, "publish_month")
        crawls.append(directory)
    return crawls


def sign_months(
    root: Path, crawls: list[Path], months: list[str], config: DedupConfig
) -> tuple[list[Path], SignedCorpus]:
    """Each crawl folder signed into ``root/sig/<month>.parquet``, then read back as the dedup stage does."""
    paths = []
    for crawl, directory in zip(months, crawls, strict=True):
        paths.append(root / "sig" / f"{crawl}.parquet")
        sign_crawl_month(directory, paths[-1], config.minhash, config.sign_batch_rows)
    return paths, read_signed(paths, config.num_perm, config.bands, config.rows, batch_rows=4)


def test_signature_files_hold_every_article_in_reading_order(tmp_path: Path) -> None:
    crawls = _ingest(tmp_path, _corpus())
    config = MinHashConfig()
    out = tmp_path / "sig" / "2025-05.parquet"
    assert sign_crawl_month(crawls[1], out, config, batch_rows=2) == 9
    stored = pq.read_table(out)
    # one file per publish month (03: 1 row, 04: the re-crawled copy, 05: 7 rows), batches of 2 rows
    metadata = pq.ParquetFile(out).metadata
    assert [metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)] == [1, 1, 2, 2, 2, 1]
    expected = pa.concat_tables([pq.read_table(path) for path in sorted(crawls[1].glob("*.parquet"))])
    assert stored.column("id").to_pylist() == expected.column("id").to_pylist()
    assert stored.column("ingest_row").to_pylist() == [0, 0, 0, 1, 2, 3, 4, 5, 6]
    assert stored.column("ingest_file").to_pylist()[:3] == [
        str(crawls[1] / f"{month}.parquet") for month in ("2025-03", "2025-04", "2025-05")
    ]
    assert stored.column("source").to_pylist()[1] == "g.warc.gz:7"
    sigs = signature_matrix(stored.column("signature"), config.num_perm)
    assert np.array_equal(sigs, signatures(expected.column("text").to_pylist(), config))


def test_file_based_dedup_equals_in_memory_dedup(tmp_path: Path) -> None:
    rows = _corpus()
    crawls = _ingest(tmp_path, rows)
    months = ["2025-04", "2025-05"]
    # batches of 2: verification reads texts in chunks of 2, the corpus is written in row groups of 2
    config = DedupConfig(text_batch_rows=2, sign_batch_rows=3, band_shards=3, workers=2)
    paths, signed = sign_months(tmp_path, crawls, months, config)
    ledger = TableLedger("dedup")
    selection = select_survivors(
        signed.meta,
        signed.hashes,
        signed.empty,
        months,
        config.select,
        StoredTexts(signed.meta, config.text_batch_rows),
        ledger,
        SERIAL,
    )
    record_selection(ledger, selection)
    starts, first = [], 0  # each crawl month's first metadata row: its signatures come in crawl order
    for crawl, path in zip(months, paths, strict=True):
        starts.append((crawl, first))
        first += pq.ParquetFile(path).metadata.num_rows
    parts = corpus_parts(signed.meta, selection.kept, months, starts)
    write_parts(signed.meta, parts, tmp_path / articles_dir(), config.text_batch_rows)
    reading_order = pa.concat_tables(
        [pq.read_table(path) for directory in crawls for path in sorted(directory.glob("*.parquet"))]
    ).cast(ARTICLE_SCHEMA)
    kept, reference = deduplicate(reading_order, months, DedupConfig(), SERIAL)
    assert ledger.metrics() == reference.metrics()
    assert ledger.rejects_table().equals(reference.rejects_table())
    assert reference.rejected_by_reason == {
        "duplicate_id": 1,
        "near_duplicate": 3,
        "publish_month_out_of_scope": 1,
    }
    written = pa.concat_tables([read_month_articles(m, tmp_path) for m in months])
    assert written.cast(ARTICLE_SCHEMA).equals(kept)
    # May's 4 kept articles were all crawled in May: one part, in row groups of text_batch_rows (2)
    may = [pq.ParquetFile(path).metadata for path in month_files("2025-05", tmp_path)]
    assert [(meta.num_rows, meta.num_row_groups) for meta in may] == [(4, 2)]
    # the copy of s5 published before it is the one kept; the April original is kept over its May copy
    urls = set(kept.column("url").to_pylist())
    assert "https://copy2.example/a" in urls and "https://s5.example/a" not in urls
    assert "https://s1.example/a" in urls and "https://copy.example/a" not in urls


def test_hash_jaccard_is_the_jaccard_of_the_shingle_sets() -> None:
    base = random_text(21)
    texts = [
        base,
        edit(base, 0.02, 1),
        edit(base, 0.3, 2),
        random_text(22),
        "",
        "Three short words",
        "three SHORT words!",
        "Straße ΣΟΦΊΑ İstanbul naïve café, Straße σοφία",  # contextual lower-casing, non-ASCII words
        base + " " + base,  # repeated shingles count once
    ]
    hashes, sizes = shingle_sets(texts, MinHashConfig(ngram=5))
    sets = np.split(hashes, np.cumsum(sizes)[:-1])
    for text, found in zip(texts, sets, strict=True):
        assert len(found) == len(shingles(text, 5))  # one distinct hash per distinct shingle
        assert np.all(found[1:] > found[:-1])  # sorted, distinct
    for i, left in enumerate(texts):
        for j, right in enumerate(texts):
            expected = jaccard(shingles(left, 5), shingles(right, 5))
            assert hash_jaccard(sets[i], sets[j]) == expected
    # the doubled text adds the 4 shingles spanning the junction to the base's n - 4 (no 5-gram of it repeats)
    words = len(base.split())
    assert hash_jaccard(sets[0], sets[-1]) == (words - 4) / words


def test_hash_jaccard_equals_string_set_jaccard_on_the_bench_corpus(tmp_path: Path) -> None:
    """On the scale bench's synthetic crawl (edited and re-crawled copies), every candidate pair scores
    exactly what Python string sets of its shingles give, so the same pairs pass the threshold."""
    from bench.dedup_scale import make_crawl

    make_crawl(tmp_path, 600, ["2024-01", "2024-02"], seed=3)
    table = pa.concat_tables(
        [pq.read_table(path) for path in sorted((tmp_path / "data" / "ingest").rglob("*.parquet"))]
    )
    texts = [str(text) for text in table.column("text").to_pylist()]
    config = MinHashConfig()
    sigs = signatures(texts, config)
    pairs = candidate_pairs(band_hashes(sigs, 28, 4), empty_rows(sigs), 1, SERIAL)
    hashes, sizes = shingle_sets(texts, config)
    sets = np.split(hashes, np.cumsum(sizes)[:-1])
    scores = [hash_jaccard(sets[i], sets[j]) for i, j in pairs.tolist()]
    expected = [jaccard(shingles(texts[i], 5), shingles(texts[j], 5)) for i, j in pairs.tolist()]
    assert scores == expected
    assert sum(score >= 0.6 for score in expected) >= 10  # the planted copies are there
    assert any(0.0 < score < 0.6 for score in expected)  # and pairs that fail the threshold
