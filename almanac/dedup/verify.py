"""Exact Jaccard of candidate pairs, on vectorised shingle hashes, with each text read once.

The texts of the documents of candidate pairs are read in one pass, in whatever order their storage
gives cheapest (the dedup stage: ingest file by ingest file, rows in file order), and each text becomes
its sorted set of 64-bit shingle hashes (:func:`almanac.dedup.minhash.shingle_sets`, numpy over a whole
batch). The sets go to a spill file on local disk, so memory holds one batch of texts whatever the number
of candidates; pairs are then scored in (i, j) order, each set read back with one ``pread``.
"""

from __future__ import annotations

import os
import tempfile
from array import array
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from almanac.core.progress import progress
from almanac.dedup.minhash import MinHashConfig, shingle_sets

U64 = npt.NDArray[np.uint64]
# Texts of rows of the metadata table: given rows, yields ``(positions into rows, texts)`` chunks that
# together cover every row once, in any order.
TextSource = Callable[[npt.NDArray[np.int64]], Iterator[tuple[npt.NDArray[np.int64], list[str]]]]

_ITEM = 8  # bytes per stored hash


@dataclass(frozen=True)
class VerifySettings:
    ngram: int
    threshold: float
    workers: int = 1  # threads hashing chunks of texts while the next chunk is read


class ShingleSpill:
    """Sorted shingle-hash sets of documents ``0..count-1``, in an unlinked temporary file."""

    def __init__(self, count: int) -> None:
        self.offsets = np.full(count, -1, dtype=np.int64)  # in hashes
        self.sizes = np.zeros(count, dtype=np.int64)
        # unlinked at once and closed by close(): nothing is left on disk, even after a crash
        self._file = tempfile.TemporaryFile(prefix="almanac-dedup-shingles-")  # noqa: SIM115
        self._written = 0

    def add(self, documents: npt.NDArray[np.int64], hashes: U64, sizes: npt.NDArray[np.int64]) -> None:
        self.offsets[documents] = self._written + np.cumsum(sizes) - sizes
        self.sizes[documents] = sizes
        self._file.write(np.ascontiguousarray(hashes, dtype="<u8").tobytes())
        self._written += len(hashes)

    def get(self, document: int) -> U64:
        size = int(self.sizes[document])
        if not size:
            return np.zeros(0, dtype=np.uint64)
        raw = os.pread(self._file.fileno(), size * _ITEM, int(self.offsets[document]) * _ITEM)
        return np.frombuffer(raw, dtype="<u8").astype(np.uint64, copy=False)

    def flush(self) -> None:
        self._file.flush()

    def close(self) -> None:
        self._file.close()


def hash_jaccard(left: U64, right: U64) -> float:
    """|a & b| / |a | b| of two sorted sets of distinct hashes; an empty set scores 0 (as minhash.jaccard)."""
    if not len(left) or not len(right):
        return 0.0
    # a stable sort of two ascending runs is one linear merge (timsort finds the runs); a hash in both
    # sets is then two equal neighbours (half the CPU of a binary search per hash)
    merged = np.concatenate((left, right))
    merged.sort(kind="stable")
    common = int(np.count_nonzero(merged[1:] == merged[:-1]))
    return common / (len(left) + len(right) - common)


def verify_pairs(
    pairs: npt.NDArray[np.int64],
    texts: Callable[[npt.NDArray[np.int64]], Iterator[tuple[npt.NDArray[np.int64], list[str]]]],
    settings: VerifySettings,
) -> npt.NDArray[np.float64]:
    """Rows ``(i, j, jaccard)`` of ``pairs`` (sorted by (i, j)) whose exact shingle Jaccard reaches the
    threshold. ``texts(documents)`` yields the texts of the documents ``documents`` (sorted indices)."""
    documents = np.unique(pairs) if len(pairs) else np.zeros(0, dtype=np.int64)
    spill = ShingleSpill(len(documents))
    try:
        _fill(spill, documents, texts, settings)
        return _score(pairs, documents, spill, settings.threshold)
    finally:
        spill.close()


def _fill(
    spill: ShingleSpill,
    documents: npt.NDArray[np.int64],
    texts: Callable[[npt.NDArray[np.int64]], Iterator[tuple[npt.NDArray[np.int64], list[str]]]],
    settings: VerifySettings,
) -> None:
    config = MinHashConfig(ngram=settings.ngram)
    workers = max(1, settings.workers)
    pending: deque[tuple[npt.NDArray[np.int64], Future[tuple[U64, npt.NDArray[np.int64]]]]] = deque()
    seen = 0
    with ThreadPoolExecutor(workers) as pool:
        for positions, chunk in texts(documents):
            pending.append((positions, pool.submit(shingle_sets, chunk, config)))
            while len(pending) > workers:  # bounded: at most ``workers`` chunks of texts are held
                done, future = pending.popleft()
                spill.add(done, *future.result())
            seen += len(positions)
        while pending:
            done, future = pending.popleft()
            spill.add(done, *future.result())
    spill.flush()
    if seen != len(documents) or (spill.offsets < 0).any():
        raise RuntimeError(f"asked for {len(documents)} texts, the text source gave {seen}: re-sign")


def _score(
    pairs: npt.NDArray[np.int64], documents: npt.NDArray[np.int64], spill: ShingleSpill, threshold: float
) -> npt.NDArray[np.float64]:
    local = np.searchsorted(documents, pairs) if len(pairs) else pairs
    # verified pairs as flat 8-byte arrays, and the pairs as Python ints a piece at a time: a Python
    # tuple or list per pair would cost ~250 bytes each (~100 bytes per article at 10M articles)
    firsts, seconds, scores = array("q"), array("q"), array("d")
    held, held_set = -1, np.zeros(0, dtype=np.uint64)
    for (left, right), (i, j) in progress(
        _in_pieces(local, pairs), desc="jaccard of candidate pairs", unit="pair", total=len(pairs)
    ):
        if left != held:  # pairs come sorted by i: one read per first document
            held, held_set = left, spill.get(left)
        similarity = hash_jaccard(held_set, spill.get(right))
        if similarity >= threshold:
            firsts.append(i)
            seconds.append(j)
            scores.append(similarity)
    columns = [np.frombuffer(values, dtype=values.typecode) for values in (firsts, seconds, scores)]
    return np.column_stack([column.astype(np.float64) for column in columns]).reshape(-1, 3)


def _in_pieces(
    local: npt.NDArray[np.int64], pairs: npt.NDArray[np.int64]
) -> Iterator[tuple[list[int], list[int]]]:
    for start in range(0, len(pairs), _PIECE):
        stop = start + _PIECE
        yield from zip(local[start:stop].tolist(), pairs[start:stop].tolist(), strict=True)


_PIECE = 1 << 16
