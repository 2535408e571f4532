"""Streaming LSH: band hashes as uint64 columns, candidate pairs from equal band hashes by sorting.

Two documents are a candidate pair when all ``rows`` signature positions of at least one of ``bands``
bands agree (the same rule as datasketch's ``MinHashLSH``, see :func:`almanac.dedup.lsh.candidate_pairs`).
Each band's ``rows`` uint32 values become one uint64 hash, so the whole index is ``bands * 8`` bytes per
document and no Python object per document exists. Pairs come from runs of equal hashes after a sort.

:func:`shard_pairs` over ``[low, high)`` looks only at hashes in that range, in every band, and is a
pure function of its inputs; the stage shards by band instead (:func:`band_groups`), so a shard task
receives only its own band columns, and the union of the shards' pairs (deduplicated) is the candidate
set. Two different bands of values share a hash with probability 2^-64 per pair; such a pair is only an
extra candidate, which exact verification rejects.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import tempfile
from collections import deque
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from almanac.core.parallel import RayConfig, parallel_map
from almanac.dedup.allocator import release_free_memory
from almanac.dedup.hash_buckets import Buckets
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
    keys = [
        _band_pair_keys(hashes[:, band], excluded, low, high)
        for band in range(hashes.shape[1] if hashes.ndim == 2 else 0)
    ]
    return pairs_from_keys(keys, count)


def pairs_from_keys(keys: list[npt.NDArray[np.int64]], count: int) -> Pairs:
    """Unique ``(i, j)`` rows, sorted, from pair keys ``i * count + j``."""
    keys = [part for part in keys if len(part)]
    if not keys:
        return np.zeros((0, 2), dtype=np.int64)
    unique = np.unique(np.concatenate(keys))
    return np.stack([unique // count, unique % count], axis=1)


def _band_pair_keys(
    column: U64,
    excluded: npt.NDArray[np.bool_],
    low: int,
    high: int,
    repeated: U64 | None = None,
) -> npt.NDArray[np.int64]:
    """Keys ``i * len(column) + j`` (i < j) of every pair of rows in one run of equal hashes of the band.

    Only rows whose hash repeats can pair (:func:`_repeated_rows`). ``repeated`` is the band's repeated
    values when the caller found them already (:func:`_repeated_values`)."""
    if repeated is None:
        repeated = _repeated_values(np.sort(column)) if len(column) >= 2 else np.zeros(0, dtype=np.uint64)
    pieces = ((start, column[start : start + _PIECE]) for start in range(0, len(column), _PIECE))
    chosen, slots = _repeated_rows(pieces, len(column), repeated)
    return _pair_keys(chosen, slots, repeated, excluded, low, high)


def _pair_keys(
    chosen: npt.NDArray[np.integer[Any]],
    slots: npt.NDArray[np.int64],
    repeated: U64,
    excluded: npt.NDArray[np.bool_],
    low: int,
    high: int,
) -> npt.NDArray[np.int64]:
    """The pair keys of rows ``chosen`` (ascending) whose hashes are ``repeated[slots]``.

    Rows are put in (hash, row) order by sorting one uint64 per row, its slot (the hash's rank among
    the repeated ones) in the high half and its row in the low half: no argsort and no copy of the
    hashes. Most runs are two rows (a planted pair), one key each at once; the few longer runs make
    every pair at once without a loop over runs (:func:`_run_pair_keys`). Banding runs on several
    threads, each holding this for one band, so each array is dropped as soon as the next is made."""
    count = len(excluded)
    if low > 0 or high < _HASH_SPACE:
        picked = repeated[slots]
        keep = (picked >= np.uint64(low)) & (picked <= np.uint64(high - 1))
        chosen, slots = chosen[keep], slots[keep]
        del picked
    keep = ~excluded[chosen]
    chosen, slots = chosen[keep], slots[keep]
    del keep
    if len(chosen) < 2:
        return np.zeros(0, dtype=np.int64)
    if count < 2**32 and len(repeated) < 2**32:
        packed = (slots.astype(np.uint64) << np.uint64(32)) | chosen.astype(np.uint64)
        del chosen, slots
        packed.sort()
        ranks: npt.NDArray[np.integer[Any]] = (packed >> np.uint64(32)).astype(np.uint32)
        members: npt.NDArray[np.integer[Any]] = (packed & np.uint64(0xFFFFFFFF)).astype(
            np.int32 if count < 2**31 else np.int64
        )
        del packed
    else:
        order = np.argsort(slots, kind="stable")  # stable: rows of a run stay in index order
        members, ranks = chosen[order], slots[order]
        del chosen, slots, order
    starts = np.flatnonzero(np.concatenate(([True], ranks[1:] != ranks[:-1])))
    del ranks
    sizes = np.diff(starts, append=len(members))
    two = starts[sizes == 2]
    keys = [members[two].astype(np.int64) * count + members[two + 1]]
    del two
    longer = sizes > 2
    if np.any(longer):
        keys.append(_run_pair_keys(members, starts[longer], sizes[longer], count))
    found: npt.NDArray[np.int64] = np.concatenate(keys) if len(keys) > 1 else keys[0]
    return found


def _run_pair_keys(
    members: npt.NDArray[np.integer[Any]],
    starts: npt.NDArray[np.int64],
    sizes: npt.NDArray[np.int64],
    count: int,
) -> npt.NDArray[np.int64]:
    """Keys of every pair within runs ``members[start : start + size]`` (each ascending): the row at
    position ``p`` of a run ending at ``end`` pairs with positions ``p+1 .. end-1``, so it is repeated
    ``end - p - 1`` times and the partner offsets are a ramp restarting at each repeated row."""
    total = int(sizes.sum())
    offsets = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    positions = np.repeat(starts, sizes) + offsets
    partners = np.repeat(sizes, sizes) - offsets - 1
    left = np.flatnonzero(partners)
    repeats = partners[left]
    first = np.repeat(np.cumsum(repeats) - repeats, repeats)
    lefts = np.repeat(left, repeats)
    rights = lefts + 1 + (np.arange(int(repeats.sum()), dtype=np.int64) - first)
    keys: npt.NDArray[np.int64] = (
        members[positions[lefts]].astype(np.int64) * count + members[positions[rights]]
    )
    return keys


def _repeated_values(ordered: U64) -> U64:
    """The values that occur more than once in a sorted band column, ascending, each once."""
    same = ordered[1:] == ordered[:-1]
    repeated: U64 = ordered[1:][same]  # ascending already: only adjacent equal values to drop
    return repeated[np.concatenate(([True], repeated[1:] != repeated[:-1]))] if len(repeated) else repeated


def _repeated_rows(
    pieces: Iterable[tuple[int, U64]], count: int, repeated: U64
) -> tuple[npt.NDArray[np.integer[Any]], npt.NDArray[np.int64]]:
    """Rows (ascending) whose hash occurs more than once in the band, the only rows a pair can hold, and
    each one's slot (position of its hash in ``repeated``), from the band column's ``(first row, values)``
    pieces: the column itself need not be in memory. Rows are int32 when the band has < 2^31 rows."""
    index = np.int32 if count < 2**31 else np.int64
    if count < 2 or not len(repeated):
        return np.zeros(0, dtype=index), np.zeros(0, dtype=np.int64)
    buckets = Buckets(repeated)
    rows: list[npt.NDArray[np.integer[Any]]] = []
    slots: list[npt.NDArray[np.int64]] = []
    for start, piece in pieces:
        found = buckets.find(piece)
        hit = np.flatnonzero(found >= 0)
        rows.append((hit + start).astype(index))
        slots.append(found[hit])
    return np.concatenate(rows), np.concatenate(slots)


_PIECE = 1 << 20


class BandColumns(Protocol):
    """Band hashes one band at a time: a ``(rows, bands)`` matrix, or a store that holds them elsewhere."""

    @property
    def shape(self) -> tuple[int, int]: ...

    def column(self, band: int) -> U64: ...


@dataclass(frozen=True)
class BandMatrix:
    """Band hashes held in memory as one ``(rows, bands)`` matrix."""

    matrix: U64

    @property
    def shape(self) -> tuple[int, int]:
        rows, bands = self.matrix.shape
        return int(rows), int(bands)

    def column(self, band: int) -> U64:
        return self.matrix[:, band]


class BandFile:
    """Band hashes on local disk, band-major (each band's column contiguous) in an unlinked temporary
    file: memory holds the columns being banded, not ``bands * 8`` bytes per document."""

    def __init__(self, rows: int, bands: int) -> None:
        self.shape = (rows, bands)
        # unlinked at once and closed with this object: nothing is left on disk, even after a crash
        self._file = tempfile.TemporaryFile(prefix="almanac-dedup-bands-")  # noqa: SIM115
        self._file.truncate(rows * bands * 8)

    def write(self, start: int, block: U64) -> None:
        """Rows ``start .. start + len(block)`` of every band."""
        for band in range(self.shape[1]):
            data = np.ascontiguousarray(block[:, band], dtype="<u8").tobytes()
            os.pwrite(self._file.fileno(), data, (band * self.shape[0] + start) * 8)

    def column(self, band: int) -> U64:
        """One band's column, read into a fresh writable buffer (one copy of it in memory, not two)."""
        raw = bytearray(self.shape[0] * 8)
        done = os.preadv(self._file.fileno(), [raw], band * self.shape[0] * 8)
        if done != len(raw):
            raise OSError(f"band file: read {done} of {len(raw)} bytes of band {band}")
        return np.frombuffer(raw, dtype="<u8").view(np.uint64)

    def pieces(self, band: int, size: int) -> Iterator[tuple[int, U64]]:
        """One band's column ``size`` rows at a time, as ``(first row, values)``."""
        for start in range(0, self.shape[0], size):
            stop = min(start + size, self.shape[0])
            raw = os.pread(self._file.fileno(), (stop - start) * 8, (band * self.shape[0] + start) * 8)
            if len(raw) != (stop - start) * 8:
                raise OSError(f"band file: short read of band {band} at row {start}")
            yield start, np.frombuffer(raw, dtype="<u8").view(np.uint64)

    def close(self) -> None:
        self._file.close()


def as_columns(hashes: U64 | BandColumns) -> BandColumns:
    return BandMatrix(hashes) if isinstance(hashes, np.ndarray) else hashes


@dataclass(frozen=True)
class _ShardTask:
    hashes: U64  # only the shard's own band columns
    excluded: npt.NDArray[np.bool_]


def _run_shard(task: _ShardTask) -> Pairs:
    return shard_pairs(task.hashes, task.excluded, 0, _HASH_SPACE)


def _merged(merged: npt.NDArray[np.int64], keys: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """``np.union1d(merged, keys)`` for an ascending, unique ``merged``: only the keys it lacks are
    inserted (one copy of ``merged``, no sort of it: most of a band's pairs were found by earlier bands)."""
    keys = np.unique(keys)
    at = np.searchsorted(merged, keys)
    lacking = at == len(merged)
    lacking[~lacking] = merged[at[~lacking]] != keys[~lacking]
    found: npt.NDArray[np.int64] = np.insert(merged, at[lacking], keys[lacking])
    return found


def band_groups(bands: int, shards: int) -> list[npt.NDArray[np.intp]]:
    """The bands of each shard: ``shards`` (at most ``bands``) interleaved, near-equal groups."""
    return [np.arange(first, bands, shards) for first in range(min(shards, bands))]


def _stored_band_keys(
    columns: BandColumns, band: int, excluded: npt.NDArray[np.bool_]
) -> npt.NDArray[np.int64]:
    """:func:`_band_pair_keys` of one band. From a :class:`BandFile` the column is read twice: whole,
    sorted in place to find its repeated values, then dropped; then in pieces to find the rows holding
    them. One column's copy in memory per banding thread, and only while its values are sorted (re-reading
    8 bytes per document from the page cache costs far less than holding them)."""
    if not isinstance(columns, BandFile):
        return _band_pair_keys(columns.column(band), excluded, 0, _HASH_SPACE)
    if columns.shape[0] < 2:
        return np.zeros(0, dtype=np.int64)
    ordered = columns.column(band)  # a fresh buffer of its own
    ordered.sort()
    repeated = _repeated_values(ordered)
    del ordered
    chosen, slots = _repeated_rows(columns.pieces(band, _PIECE), columns.shape[0], repeated)
    return _pair_keys(chosen, slots, repeated, excluded, 0, _HASH_SPACE)


def candidate_pairs(
    hashes: U64 | BandColumns,
    excluded: npt.NDArray[np.bool_],
    shards: int,
    ray_config: RayConfig,
    workers: int = 1,
) -> Pairs:
    """The union of every band's pairs (a pair found in two bands counts once), sorted by (i, j).

    ``shards`` > 1 runs groups of bands as ``parallel_map`` tasks, each given only its own band columns;
    in this process the bands are banded on ``workers`` threads (numpy's sorts release the GIL)."""
    columns = as_columns(hashes)
    count, bands = columns.shape
    if count < 2:
        return np.zeros((0, 2), dtype=np.int64)
    if shards == 1:
        # A near-duplicate pair shares most of its bands: merged band by band, the keys are held once,
        # not once per band (28 copies of every planted pair's key at 30% planted near-duplicates).
        release_free_memory()  # the metadata sorts' buffers, before the band columns
        merged = np.zeros(0, dtype=np.int64)
        threads = max(1, workers)
        with ThreadPoolExecutor(threads) as pool:
            # a band per thread in flight, and one more (``pool.map`` would band all 28 at once and hold
            # every band's keys until merged: ~900 MB at 10M articles when the merging falls behind)
            running: deque[Future[npt.NDArray[np.int64]]] = deque()
            band = 0
            while band < bands or running:
                while band < bands and len(running) <= threads:  # one more than the threads: none idles
                    running.append(pool.submit(_stored_band_keys, columns, band, excluded))
                    band += 1
                merged = _merged(merged, running.popleft().result())
                release_free_memory()  # each band's freed sort and merge buffers, not 28 bands' worth
        pairs = pairs_from_keys([merged], count)
        del merged
        release_free_memory()  # the band columns' and sorts' pages, before verification's arrays
        return pairs
    tasks = [
        _ShardTask(np.stack([columns.column(int(band)) for band in group], axis=1), excluded)
        for group in band_groups(bands, shards)
    ]
    found = parallel_map(_run_shard, tasks, ray_config, desc="lsh band shards", unit="shard")
    merged = np.concatenate([np.zeros((0, 2), dtype=np.int64), *found])
    if not len(merged):
        return merged
    return np.unique(merged, axis=0)
