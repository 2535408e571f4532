"""Cross-month, cross-source near-duplicate removal: MinHash on Ray, LSH, exact verification, clusters."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from almanac.core.parallel import RayConfig, parallel_map
from almanac.core.progress import progress
from almanac.core.rejects import StageLedger
from almanac.dedup.cluster import Duplicate, resolve_clusters
from almanac.dedup.lsh import candidate_pairs
from almanac.dedup.minhash import MinHashConfig, jaccard, shingles, signatures

STAGE = "dedup"


@dataclass(frozen=True)
class DedupConfig:
    ngram: int = 5  # word n-grams, as datatrove and text-dedup use for news
    num_perm: int = 112
    bands: int = 28  # 28 x 4 puts recall >= 0.999 at Jaccard 0.7; candidates are verified anyway
    rows: int = 4
    threshold: float = 0.6  # exact Jaccard of word 5-gram sets; ~4% edited words already gives ~0.7
    seed: int = 1
    docs_per_task: int = 2000  # one Ray task signs this many articles

    def __post_init__(self) -> None:
        if self.bands * self.rows > self.num_perm:
            raise ValueError(f"bands*rows = {self.bands * self.rows} exceeds num_perm = {self.num_perm}")
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError("threshold must be in (0, 1]")

    @property
    def minhash(self) -> MinHashConfig:
        return MinHashConfig(num_perm=self.num_perm, ngram=self.ngram, seed=self.seed)


@dataclass(frozen=True)
class _SignTask:
    texts: list[str]
    config: MinHashConfig


def _sign(task: _SignTask) -> np.ndarray:
    return signatures(task.texts, task.config)


@dataclass(frozen=True)
class NearDuplicates:
    duplicates: list[Duplicate]
    candidate_pairs: int
    verified_pairs: int


def find_near_duplicates(
    texts: list[str], order_keys: list[tuple[object, ...]], config: DedupConfig, ray_config: RayConfig
) -> NearDuplicates:
    """Clusters of texts whose exact shingle Jaccard reaches the threshold; each keeps its smallest key.

    Signatures are computed in chunks on Ray; LSH proposes pairs, exact Jaccard verifies them.
    """
    step = config.docs_per_task
    chunks = [texts[start : start + step] for start in range(0, len(texts), step)]
    tasks = [_SignTask(chunk, config.minhash) for chunk in chunks]
    signed = parallel_map(_sign, tasks, ray_config, desc="minhash signatures", unit="chunk")
    sigs = np.concatenate(signed) if signed else np.zeros((0, config.num_perm), dtype=np.uint32)
    candidates = candidate_pairs(sigs, config.bands, config.rows)
    verified = _verify(candidates, texts, config)
    return NearDuplicates(resolve_clusters(len(texts), verified, order_keys), len(candidates), len(verified))


def deduplicate(
    articles: pa.Table, months: list[str], config: DedupConfig, ray_config: RayConfig
) -> tuple[pa.Table, StageLedger]:
    """The corpus of ``months``: kept articles (earliest of each cluster) and a ledger of what was dropped."""
    ledger = StageLedger(STAGE, items_in=articles.num_rows)
    articles = _restrict_to_months(articles, months, ledger)
    # Earliest first, ties by id: makes every later choice (which copy is kept) order-independent.
    articles = articles.sort_by([("publish_date", "ascending"), ("id", "ascending")])
    ids = articles.column("id").to_pylist()
    locations = _locations(articles)
    first_index: dict[str, int] = {}
    keep = np.ones(len(ids), dtype=bool)
    for index, article_id in enumerate(ids):
        if article_id in first_index:  # same URL and text, e.g. re-crawled in a later month
            keep[index] = False
            ledger.reject(
                article_id, "duplicate_id", "same canonical URL and text", locations[index], article_id
            )
        else:
            first_index[article_id] = index
    unique = articles.filter(pa.array(keep))
    texts = unique.column("text").to_pylist()
    unique_ids = unique.column("id").to_pylist()
    unique_locations = _locations(unique)
    dates = unique.column("publish_date").to_pylist()
    found = find_near_duplicates(
        texts, [(dates[i], unique_ids[i]) for i in range(len(texts))], config, ray_config
    )
    duplicates = found.duplicates
    drop = np.zeros(len(texts), dtype=bool)
    for duplicate in duplicates:
        drop[duplicate.index] = True
        ledger.reject(
            unique_ids[duplicate.index],
            "near_duplicate",
            f"jaccard={duplicate.jaccard:.3f} with {unique_ids[duplicate.neighbour]}",
            unique_locations[duplicate.index],
            unique_ids[duplicate.kept],
        )
    kept = unique.filter(pa.array(~drop))
    ledger.items_out = kept.num_rows
    ledger.extra.update(
        {
            "candidate_pairs": found.candidate_pairs,
            "verified_pairs": found.verified_pairs,
            "rejected_candidate_pairs": found.candidate_pairs - found.verified_pairs,
            # Share of in-scope articles removed as exact or near duplicates.
            "dedup_rate": round(1 - kept.num_rows / articles.num_rows, 4) if articles.num_rows else 0.0,
        }
    )
    kept = kept.sort_by([("publish_month", "ascending"), ("publish_date", "ascending"), ("id", "ascending")])
    return kept, ledger


def _restrict_to_months(articles: pa.Table, months: list[str], ledger: StageLedger) -> pa.Table:
    """Crawl month M also holds older articles; only those published in a month in scope are kept."""
    in_scope = pc.is_in(articles.column("publish_month"), value_set=pa.array(months, type=pa.string()))
    dropped = articles.filter(pc.invert(in_scope))
    months_dropped = dropped.column("publish_month").to_pylist()
    for article_id, month, location in zip(
        dropped.column("id").to_pylist(), months_dropped, _locations(dropped), strict=True
    ):
        ledger.reject(article_id, "publish_month_out_of_scope", f"published in {month}", location)
    return articles.filter(in_scope)


def _locations(articles: pa.Table) -> list[str]:
    files = articles.column("source_file").to_pylist()
    offsets = articles.column("source_offset").to_pylist()
    return [f"{name}:{offset}" for name, offset in zip(files, offsets, strict=True)]


def _verify(
    candidates: list[tuple[int, int]], texts: list[str], config: DedupConfig
) -> list[tuple[int, int, float]]:
    """Keep candidate pairs whose exact shingle Jaccard reaches the threshold (LSH over-reports)."""
    cache: dict[int, set[str]] = {}

    def shingle_set(index: int) -> set[str]:
        if index not in cache:
            cache[index] = shingles(texts[index], config.ngram)
        return cache[index]

    verified = []
    for left, right in progress(candidates, desc="jaccard of candidate pairs", unit="pair"):
        similarity = jaccard(shingle_set(left), shingle_set(right))
        if similarity >= config.threshold:
            verified.append((left, right, similarity))
    return verified
