"""Cross-month, cross-source near-duplicate removal: MinHash on Ray, LSH, exact verification, clusters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from almanac.core.parallel import RayConfig, parallel_map
from almanac.core.progress import progress
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, GroupStep, apply_filter, apply_group_step, first_survives
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
    """The corpus of ``months``: kept articles (earliest of each cluster) and a ledger of what was dropped.

    Three steps on one ledger, each taking the previous one's output: the month scope, exact copies
    (same id), near duplicates. The records are row positions in the table each step reads.
    """
    ledger = StageLedger(STAGE)
    locations = _locations(articles)
    months_of = articles.column("publish_month").to_pylist()
    in_scope = set(months)

    def scoped(index: int) -> Drop | None:
        month = months_of[index]
        return None if month in in_scope else Drop("publish_month_out_of_scope", f"published in {month}")

    ids = articles.column("id").to_pylist()
    kept = apply_filter(range(articles.num_rows), scoped, ledger, ids.__getitem__, locations.__getitem__)
    scoped_articles = articles.take(pa.array(kept, type=pa.int64()))
    # Earliest first, ties by id: makes every later choice (which copy is kept) order-independent.
    scoped_articles = scoped_articles.sort_by([("publish_date", "ascending"), ("id", "ascending")])
    ids = scoped_articles.column("id").to_pylist()
    locations = _locations(scoped_articles)
    # Same URL and text, e.g. re-crawled in a later month: the first copy in date order stays.
    same_id = first_survives(
        ids.__getitem__,
        lambda _copy, _first: Drop("duplicate_id", "same canonical URL and text"),
        ids.__getitem__,
        locations.__getitem__,
    )
    unique_positions = apply_group_step(range(len(ids)), same_id, ledger, chained=True)
    unique = scoped_articles.take(pa.array(unique_positions, type=pa.int64()))
    texts = unique.column("text").to_pylist()
    unique_ids = unique.column("id").to_pylist()
    dates = unique.column("publish_date").to_pylist()
    found = find_near_duplicates(
        texts, [(dates[i], unique_ids[i]) for i in range(len(texts))], config, ray_config
    )
    clusters = cluster_step(found.duplicates, unique_ids, _locations(unique), "near_duplicate")
    kept = apply_group_step(range(len(texts)), clusters, ledger, chained=True)
    corpus = unique.take(pa.array(kept, type=pa.int64()))
    ledger.extra.update(
        {
            "candidate_pairs": found.candidate_pairs,
            "verified_pairs": found.verified_pairs,
            "rejected_candidate_pairs": found.candidate_pairs - found.verified_pairs,
            # Share of in-scope articles removed as exact or near duplicates.
            "dedup_rate": round(1 - corpus.num_rows / scoped_articles.num_rows, 4)
            if scoped_articles.num_rows
            else 0.0,
        }
    )
    corpus = corpus.sort_by(
        [("publish_month", "ascending"), ("publish_date", "ascending"), ("id", "ascending")]
    )
    return corpus, ledger


def cluster_step(
    duplicates: Sequence[Duplicate], ids: Sequence[str], sources: Sequence[str], reason: str
) -> GroupStep[int]:
    """Near-duplicate clusters as a group rule over record positions: each keeps its :class:`Duplicate`
    ``kept`` member; a dropped one names the neighbour it was verified against in its detail."""
    edge = {duplicate.index: duplicate for duplicate in duplicates}

    def group_key(index: int) -> int:
        return edge[index].kept if index in edge else index

    def choose(members: Sequence[int]) -> int:
        return members.index(group_key(members[0]))

    def outranked(loser: int, _survivor: int) -> Drop:
        duplicate = edge[loser]
        return Drop(reason, f"jaccard={duplicate.jaccard:.3f} with {ids[duplicate.neighbour]}")

    return GroupStep(group_key, choose, outranked, ids.__getitem__, sources.__getitem__)


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
