"""Near-duplicate removal: cluster resolution rules and the full dedup step on planted duplicates."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.parallel import RayConfig
from almanac.core.schemas import ARTICLE_SCHEMA, table_from_rows
from almanac.dedup.cluster import resolve_clusters
from almanac.dedup.minhash import jaccard, shingles
from almanac.dedup.near_duplicates import DedupConfig, deduplicate

SERIAL = RayConfig(executor="serial")
VOCABULARY = [f"w{index}" for index in range(3000)]


def random_text(seed: int, words: int = 300) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(VOCABULARY) for _ in range(words))


def edit(text: str, fraction: float, seed: int) -> str:
    rng = random.Random(seed)
    words = text.split()
    for index in rng.sample(range(len(words)), int(len(words) * fraction)):
        words[index] = "edited" + str(index)
    return " ".join(words)


def article(text: str, url: str, day: int, month: str = "2025-05") -> dict[str, object]:
    year, mon = (int(part) for part in month.split("-"))
    published = datetime(year, mon, day, tzinfo=UTC)
    return {
        "id": content_id(url, text),
        "url": url,
        "source_domain": url.split("/")[2],
        "title": None,
        "text": text,
        "publish_date": published,
        "publish_month": month,
        "date_source": "html_meta",
        "date_precision": "day",
        "language": "en",
        "word_count": len(text.split()),
        "crawl_date": None,
        "source_format": "warc",
        "source_file": "f.warc.gz",
        "source_offset": day,
        "charset": None,
        "truncated": False,
    }


def test_resolve_clusters_keeps_earliest_and_breaks_ties_by_key() -> None:
    # 0-1-2 chain into one cluster even though 0 and 2 were never compared; 3-4 form another.
    pairs = [(0, 1, 0.9), (1, 2, 0.7), (3, 4, 0.8)]
    keys: list[tuple[object, ...]] = [(5, "e"), (2, "b"), (9, "z"), (1, "y"), (1, "x")]
    duplicates = {d.index: d for d in resolve_clusters(5, pairs, keys)}
    assert set(duplicates) == {0, 2, 3}
    assert duplicates[0].kept == 1 and duplicates[2].kept == 1
    assert duplicates[3].kept == 4  # same date: the smaller id wins
    assert duplicates[0].neighbour == 1 and duplicates[0].jaccard == 0.9
    assert duplicates[2].neighbour == 1 and duplicates[2].jaccard == 0.7


def test_planted_near_duplicates_are_removed_keeping_the_earliest() -> None:
    original = random_text(1)
    syndicated = edit(original, 0.03, seed=2)  # ~3% of words changed
    rewrite = edit(original, 0.45, seed=3)  # heavily rewritten: below the threshold
    assert jaccard(shingles(original, 5), shingles(syndicated, 5)) > 0.7
    assert jaccard(shingles(original, 5), shingles(rewrite, 5)) < 0.2
    rows = [
        article(syndicated, "https://b.example/syndicated", day=9),
        article(original, "https://a.example/original", day=3),
        article(random_text(4), "https://c.example/other", day=5),
        article(rewrite, "https://d.example/rewrite", day=1),
        article(original, "https://a.example/original", day=3),  # the same record crawled twice
        article(random_text(5), "https://c.example/april", day=20, month="2025-04"),
    ]
    table = table_from_rows(rows, ARTICLE_SCHEMA)
    kept, ledger = deduplicate(table, ["2025-05"], DedupConfig(), SERIAL)
    ledger.check_balance()
    assert sorted(kept.column("url").to_pylist()) == [
        "https://a.example/original",
        "https://c.example/other",
        "https://d.example/rewrite",
    ]
    by_reason = {row["reason"]: row for row in ledger.rejects_table().to_pylist()}
    assert ledger.rejected_by_reason == {
        "duplicate_id": 1,
        "near_duplicate": 1,
        "publish_month_out_of_scope": 1,
    }
    original_id = content_id("https://a.example/original", original)
    assert by_reason["near_duplicate"]["id"] == content_id("https://b.example/syndicated", syndicated)
    assert by_reason["near_duplicate"]["related_id"] == original_id
    assert by_reason["duplicate_id"]["related_id"] == original_id
    assert ledger.extra["verified_pairs"] == 1


def test_dedup_output_does_not_depend_on_input_order() -> None:
    texts = [random_text(seed) for seed in range(6)]
    rows = [article(text, f"https://s{i}.example/a", day=1 + i) for i, text in enumerate(texts)]
    rows += [article(edit(texts[0], 0.02, seed=9), "https://copy.example/a", day=1)]  # same day as s0
    forward, _ = deduplicate(table_from_rows(rows, ARTICLE_SCHEMA), ["2025-05"], DedupConfig(), SERIAL)
    backward, _ = deduplicate(table_from_rows(rows[::-1], ARTICLE_SCHEMA), ["2025-05"], DedupConfig(), SERIAL)
    assert forward.equals(backward)
    assert forward.num_rows == 6


def test_empty_corpus() -> None:
    kept, ledger = deduplicate(ARTICLE_SCHEMA.empty_table(), ["2025-05"], DedupConfig(), SERIAL)
    assert kept.num_rows == 0 and ledger.items_in == 0 and isinstance(kept, pa.Table)


def test_a_copy_of_an_id_published_on_another_day_is_a_duplicate_id() -> None:
    # The same URL and text crawled twice, its date read differently the second time: one id, two days.
    # The copy with the earlier date stays, whatever the reading order; the other is a duplicate_id.
    text = random_text(11)
    later = article(text, "https://a.example/x", day=12)
    earlier = article(text, "https://a.example/x", day=4)
    earlier["source_file"] = "g.warc.gz"
    rows = [later, article(random_text(12), "https://b.example/y", day=8), earlier]
    kept, ledger = deduplicate(table_from_rows(rows, ARTICLE_SCHEMA), ["2025-05"], DedupConfig(), SERIAL)
    assert kept.column("source_file").to_pylist() == ["g.warc.gz", "f.warc.gz"]
    assert ledger.rejected_by_reason == {"duplicate_id": 1}
    [reject] = ledger.rejects_table().to_pylist()
    assert reject["source"] == "f.warc.gz:12" and reject["related_id"] == later["id"]
