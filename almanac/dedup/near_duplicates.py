"""Near-duplicate removal settings, and dedup of texts held in memory (questions, tests, small corpora).

The corpus stage does not hold texts: it reads signature files (almanac.dedup.signature_store), bands
them (almanac.dedup.banding) and decides with :func:`almanac.dedup.survivors.select_survivors`, which
:func:`deduplicate` runs too, so both give the same decisions.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc

from almanac.core.parallel import RayConfig, parallel_map
from almanac.core.progress import progress
from almanac.core.rejects import StageLedger, TableLedger
from almanac.core.step import Drop, GroupStep
from almanac.dedup.banding import band_hashes, candidate_pairs, empty_rows
from almanac.dedup.cluster import Duplicate, resolve_clusters
from almanac.dedup.minhash import MinHashConfig, jaccard, shingles, signatures
from almanac.dedup.survivors import Selection, SelectSettings, select_survivors

STAGE = "dedup"


@dataclass(frozen=True)
class DedupConfig:
    ngram: int = 5  # word n-grams, as datatrove and text-dedup use for news
    num_perm: int = 112
    bands: int = 28  # 28 x 4 puts recall >= 0.999 at Jaccard 0.7; candidates are verified anyway
    rows: int = 4
    threshold: float = 0.6  # exact Jaccard of word 5-gram sets; ~4% edited words already gives ~0.7
    seed: int = 1
    docs_per_task: int = 2000  # in-memory dedup (questions): one Ray task signs this many texts
    sign_batch_rows: int = 4096  # dedup_signatures: texts signed and written per batch
    text_batch_rows: int = 4096  # dedup: texts held at once (verification) and rows per written row group
    band_shards: int = 1  # groups of bands banded as separate parallel_map tasks (1 = in-process)
    workers: int = (
        0  # dedup: threads banding and hashing texts in the stage's process; 0 = every core it may use
    )

    def __post_init__(self) -> None:
        if self.bands * self.rows > self.num_perm:
            raise ValueError(f"bands*rows = {self.bands * self.rows} exceeds num_perm = {self.num_perm}")
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError("threshold must be in (0, 1]")
        for name in ("docs_per_task", "sign_batch_rows", "text_batch_rows", "band_shards"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        if self.workers < 0:
            raise ValueError(f"workers must be >= 0, got {self.workers}")

    @property
    def select(self) -> SelectSettings:
        workers = self.workers or len(os.sched_getaffinity(0))
        return SelectSettings(self.ngram, self.threshold, self.band_shards, workers)

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
    sigs = _signatures(texts, config, ray_config)
    hashes = band_hashes(sigs, config.bands, config.rows)
    found = candidate_pairs(hashes, empty_rows(sigs), config.band_shards, ray_config)
    candidates = [(int(left), int(right)) for left, right in found]
    verified = _verify(candidates, texts, config)
    return NearDuplicates(resolve_clusters(len(texts), verified, order_keys), len(candidates), len(verified))


def _signatures(texts: list[str], config: DedupConfig, ray_config: RayConfig) -> npt.NDArray[np.uint32]:
    step = config.docs_per_task
    chunks = [texts[start : start + step] for start in range(0, len(texts), step)]
    tasks = [_SignTask(chunk, config.minhash) for chunk in chunks]
    signed = parallel_map(_sign, tasks, ray_config, desc="minhash signatures", unit="chunk")
    return np.concatenate(signed) if signed else np.zeros((0, config.num_perm), dtype=np.uint32)


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


def deduplicate(
    articles: pa.Table, months: list[str], config: DedupConfig, ray_config: RayConfig
) -> tuple[pa.Table, TableLedger]:
    """The corpus of ``months`` from an in-memory table: the same decisions as the dedup stage, which
    runs :func:`select_survivors` over signature files instead (for tests and small corpora)."""
    ledger = TableLedger(STAGE)
    locations = pc.binary_join_element_wise(
        articles.column("source_file"), pc.cast(articles.column("source_offset"), pa.string()), ":"
    )
    meta = pa.table(
        {
            "id": articles.column("id"),
            "month": articles.column("publish_month"),
            "publish_date": articles.column("publish_date"),
            "source": locations,
        }
    )
    sigs = _signatures(articles.column("text").to_pylist(), config, ray_config)
    texts = articles.column("text")

    def lookup(rows: npt.NDArray[np.int64]) -> Iterator[tuple[npt.NDArray[np.int64], list[str]]]:
        for start in range(0, len(rows), config.text_batch_rows):
            chunk = rows[start : start + config.text_batch_rows]
            yield (
                np.arange(start, start + len(chunk)),
                [str(text) for text in texts.take(pa.array(chunk)).to_pylist()],
            )

    selection = select_survivors(
        meta,
        band_hashes(sigs, config.bands, config.rows),
        empty_rows(sigs),
        months,
        config.select,
        lookup,
        ledger,
        ray_config,
    )
    record_selection(ledger, selection)
    kept = articles.take(pa.array(selection.kept))
    kept = kept.sort_by([("publish_month", "ascending"), ("publish_date", "ascending"), ("id", "ascending")])
    return kept, ledger


def cluster_step(
    duplicates: Sequence[Duplicate], ids: Sequence[str], sources: Sequence[str], reason: str
) -> GroupStep[int]:
    """Near-duplicate clusters as a group rule over record positions (question dedup): each keeps its
    :class:`Duplicate` ``kept`` member; a dropped one names the neighbour it was verified against."""
    edge = {duplicate.index: duplicate for duplicate in duplicates}

    def group_key(index: int) -> int:
        return edge[index].kept if index in edge else index

    def choose(members: Sequence[int]) -> int:
        return members.index(group_key(members[0]))

    def outranked(loser: int, _survivor: int) -> Drop:
        duplicate = edge[loser]
        return Drop(reason, f"jaccard={duplicate.jaccard:.3f} with {ids[duplicate.neighbour]}")

    return GroupStep(group_key, choose, outranked, ids.__getitem__, sources.__getitem__)


def record_selection(ledger: StageLedger, selection: Selection) -> None:
    """The dedup metrics beyond the counts (the names reports/ and the funnels read)."""
    kept = len(selection.kept)
    ledger.extra.update(
        {
            "candidate_pairs": selection.candidate_pairs,
            "verified_pairs": selection.verified_pairs,
            "rejected_candidate_pairs": selection.candidate_pairs - selection.verified_pairs,
            # Share of in-scope articles removed as exact or near duplicates.
            "dedup_rate": round(1 - kept / selection.in_scope, 4) if selection.in_scope else 0.0,
        }
    )
