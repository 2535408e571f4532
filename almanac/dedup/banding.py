"""Streaming LSH: band hashes as uint64 columns, candidate pairs from equal band hashes by sorting.

Two documents are a candidate pair when all ``rows`` signature positions of at least one of ``bands``
bands agree (the same rule as datasketch's ``MinHashLSH``, see :func:`almanac.dedup.lsh.candidate_pairs`).
Each band's ``rows`` uint32 values become one uint64 hash, so the whole index is ``bands * 8`` bytes per
document and no Python object per document exists. Pairs come from runs of equal hashes after a sort.

A shard is a half-open range of hash values: :func:`shard_pairs` over ``[low, high)`` looks only at
hashes in that range, in every band, and is a pure function of its inputs, so shards can run on
different workers and their union (deduplicated) is the candidate set. Two different bands of values
share a hash with probability 2^-64 per pair; such a pair is only an extra candidate, which exact
verification rejects.
"""

from __future__ import annotations

import hashlib
import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from almanac.core.parallel import RayConfig, parallel_map
from almanac.dedup.minhash import mix64

U64 = npt.NDArray[np.uint64]
Pairs = npt.NDArray[np.int64]  # shape (m, 2), i < j, sorted by (i, j)

_HASH_SPACE = 1 << 64


def _band_keys(rows: int) -> tuple[npt.NDArray[np.uint64], int]:
    """Odd per-position weights and a per-band offset, fixed forever (a change would move no output,
    only which equal bands are found first, but fixed constants keep shards reproducible)."""
    raw = hashlib.shake_256(b"almanac.dedup.banding/v1").digest(8 * (rows + 1))
    values = [int.from_bytes(raw[8 * i : 8 * i + 8], "little") for i in range(rows + 1)]
    return np.array([value | 1 for value in values[:rows]], dtype=np.uint64), values[rows]


def check_shape(num_perm: int, bands: int, rows: int) -> None:
    if bands < 1 or rows < 1:
        raise ValueError(f"bands and rows must be >= 1, got bands={bands}, rows={rows}")
    if bands * rows > num_perm:
        raise ValueError(f"bands * rows = {bands} * {rows} = {bands * rows} exceeds num_perm = {num_perm}")


def band_hashes(sigs: npt.NDArray[np.unsignedinteger], bands: int, rows: int) -> U64:
    """Shape ``(len(sigs), bands)``: one uint64 per band of ``rows`` consecutive signature values.

    Equal bands always give equal hashes; the per-band offset keeps band b of one document from
    matching band c of another when both hold the same values.
    """
    if sigs.ndim != 2:
        raise ValueError(f"signatures must be a 2-D array, got shape {sigs.shape}")
    if sigs.dtype.kind != "u":
        raise ValueError(f"signatures must be unsigned integers, got {sigs.dtype}")
    check_shape(sigs.shape[1], bands, rows)
    weights, offset = _band_keys(rows)
    out = np.empty((len(sigs), bands), dtype=np.uint64)
    for band in range(bands):
        block = sigs[:, band * rows : (band + 1) * rows].astype(np.uint64)
        combined = block[:, 0] * weights[0]
        for position in range(1, rows):
            combined += block[:, position] * weights[position]
        combined += np.uint64((offset * (band + 1)) & (_HASH_SPACE - 1))
        out[:, band] = mix64(combined)
    return out


def empty_rows(sigs: npt.NDArray[np.unsignedinteger]) -> npt.NDArray[np.bool_]:
    """Rows of the empty-text sentinel (every value the dtype's maximum): never candidates, since a text
    without words has Jaccard 0 with anything and many of them would pair each with every other."""
    return np.asarray((sigs == np.iinfo(sigs.dtype).max).all(axis=1))


def shard_bounds(shards: int) -> list[tuple[int, int]]:
    """``shards`` equal half-open ranges covering all uint64 hash values."""
    if shards < 1:
        raise ValueError(f"shards must be >= 1, got {shards}")
    edges = [shard * _HASH_SPACE // shards for shard in range(shards + 1)]
    return list(itertools.pairwise(edges))


def shard_pairs(hashes: U64, excluded: npt.NDArray[np.bool_], low: int, high: int) -> Pairs:
    """Pairs of rows (not ``excluded``) that share a band hash in ``[low, high)``, unique, sorted."""
    count = len(hashes)
    keys: list[npt.NDArray[np.int64]] = []
    for band in range(hashes.shape[1] if hashes.ndim == 2 else 0):
        column = hashes[:, band]
        chosen = np.flatnonzero((column >= np.uint64(low)) & (column <= np.uint64(high - 1)) & ~excluded)
        if len(chosen) < 2:
            continue
        order = np.argsort(column[chosen], kind="stable")  # stable: rows of a run stay in index order
        members = chosen[order]
        values = column[members]
        starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
        lengths = np.diff(np.append(starts, len(values)))
        for start, length in zip(starts[lengths > 1], lengths[lengths > 1], strict=True):
            run = members[start : start + length].astype(np.int64)
            left, right = np.triu_indices(int(length), k=1)
            keys.append(run[left] * count + run[right])
    if not keys:
        return np.zeros((0, 2), dtype=np.int64)
    unique = np.unique(np.concatenate(keys))
    return np.stack([unique // count, unique % count], axis=1) if count else unique.reshape(0, 2)


@dataclass(frozen=True)
class _ShardTask:
    hashes: U64
    excluded: npt.NDArray[np.bool_]
    low: int
    high: int


def _run_shard(task: _ShardTask) -> Pairs:
    return shard_pairs(task.hashes, task.excluded, task.low, task.high)


def candidate_pairs(
    hashes: U64, excluded: npt.NDArray[np.bool_], shards: int, ray_config: RayConfig
) -> Pairs:
    """The union of every shard's pairs (a pair found in two bands counts once), sorted by (i, j)."""
    if shards == 1 or len(hashes) < 2:
        return shard_pairs(hashes, excluded, 0, _HASH_SPACE)
    tasks = [_ShardTask(hashes, excluded, low, high) for low, high in shard_bounds(shards)]
    found = parallel_map(_run_shard, tasks, ray_config, desc="lsh band shards", unit="shard")
    merged = np.concatenate([np.zeros((0, 2), dtype=np.int64), *found])
    if not len(merged):
        return merged
    return np.unique(merged, axis=0)
