"""Banded LSH over MinHash signatures, delegated to datasketch's ``MinHashLSH``.

Two documents become a candidate pair when all ``rows`` signature positions of at least one of
``bands`` bands agree. Candidates are only a shortlist: the caller verifies them by exact Jaccard.
"""

from __future__ import annotations

import itertools

import numpy as np
import numpy.typing as npt
from datasketch import LeanMinHash, MinHashLSH
from datasketch.lsh import _optimal_param

# datasketch labels hash values with the permutation scheme that made them, and refuses to mix
# schemes in one index. Ours are our own; only the value width has to match the label.
_SCHEME_BY_ITEMSIZE = {4: "affine32", 8: "affine64"}
_SIGNATURE_SEED = 0  # carried by each LeanMinHash, never used to hash anything here


def band_candidate_probability(similarity: float, bands: int, rows: int) -> float:
    """Chance that two sets of Jaccard ``similarity`` share at least one band: 1 - (1 - s^r)^b."""
    if not 0.0 <= similarity <= 1.0:
        raise ValueError(f"similarity must be in [0, 1], got {similarity}")
    _check_shape(bands, rows)
    return float(1.0 - (1.0 - similarity**rows) ** bands)


def optimal_bands_rows(
    threshold: float, num_perm: int, false_positive_weight: float, false_negative_weight: float
) -> tuple[int, int]:
    """datasketch's (bands, rows) minimising the weighted areas under / over the S-curve at ``threshold``."""
    if not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be in (0, 1), got {threshold}")
    if num_perm < 2:
        raise ValueError(f"num_perm must be >= 2, got {num_perm}")
    bands, rows = _optimal_param(threshold, num_perm, false_positive_weight, false_negative_weight)
    return int(bands), int(rows)


def candidate_pairs(sigs: npt.NDArray[np.unsignedinteger], bands: int, rows: int) -> list[tuple[int, int]]:
    """Index pairs ``(i, j)``, ``i < j``, sorted, of rows of ``sigs`` that share a band bucket.

    Rows of the empty-text sentinel (every value the dtype's maximum) are never candidates.
    """
    if sigs.ndim != 2:
        raise ValueError(f"signatures must be a 2-D array, got shape {sigs.shape}")
    if sigs.dtype.kind != "u" or sigs.dtype.itemsize not in _SCHEME_BY_ITEMSIZE:
        raise ValueError(f"signatures must be uint32 or uint64, got {sigs.dtype}")
    count, num_perm = sigs.shape
    _check_shape(bands, rows)
    if bands < 2:
        raise ValueError(f"datasketch's MinHashLSH needs at least 2 bands, got {bands}")
    if bands * rows > num_perm:
        raise ValueError(f"bands * rows = {bands} * {rows} = {bands * rows} exceeds num_perm = {num_perm}")
    scheme = _SCHEME_BY_ITEMSIZE[sigs.dtype.itemsize]
    index = MinHashLSH(num_perm=num_perm, params=(bands, rows))
    # A row of all-maximum values is the signature of a text without words: its Jaccard with anything
    # is 0, and indexing many of them would pair each with every other.
    empty = (sigs == np.iinfo(sigs.dtype).max).all(axis=1)
    with index.insertion_session(buffer_size=max(count, 1)) as session:
        for key, row in enumerate(sigs):
            if empty[key]:
                continue
            sketch = LeanMinHash(seed=_SIGNATURE_SEED, hashvalues=row, scheme=scheme)
            session.insert(key, sketch, check_duplication=False)
    # Reading each band's buckets gives exactly the pairs that querying every document would
    # (a query is the union of the document's buckets), without hashing every band a second time.
    pairs: set[tuple[int, int]] = set()
    for table in index.hashtables:
        for bucket_key in table.keys():  # noqa: SIM118 (a datasketch storage, not iterable like a dict)
            members = table.get(bucket_key)
            if len(members) > 1:
                pairs.update(itertools.combinations(sorted(members), 2))
    return sorted(pairs)


def _check_shape(bands: int, rows: int) -> None:
    if bands < 1 or rows < 1:
        raise ValueError(f"bands and rows must be >= 1, got bands={bands}, rows={rows}")
