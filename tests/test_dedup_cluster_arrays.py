"""resolve_ordered (numpy clusters) against resolve_clusters (the union-find reference) and by hand."""

from __future__ import annotations

import numpy as np

from almanac.dedup.banding import _band_pair_keys
from almanac.dedup.cluster import resolve_clusters, resolve_ordered


def test_chain_keeps_smallest_index_and_strongest_neighbour() -> None:
    # 3-1 (0.7), 1-4 (0.9), 4-3 (0.9): one cluster {1, 3, 4} kept by 1; 3's strongest edge is 4 (0.9),
    # 4 has two 0.9 edges and takes the smaller other end, 1. Node 0 and 2 form their own pair, 0 kept.
    left = np.array([3, 1, 4, 0])
    right = np.array([1, 4, 3, 2])
    score = np.array([0.7, 0.9, 0.9, 0.65])
    found = resolve_ordered(5, left, right, score)
    assert found.index.tolist() == [2, 3, 4]
    assert found.kept.tolist() == [0, 1, 1]
    assert found.neighbour.tolist() == [0, 4, 1]
    assert found.jaccard.tolist() == [0.65, 0.9, 0.9]


def test_matches_union_find_on_random_graphs() -> None:
    rng = np.random.default_rng(5)
    for _ in range(40):
        count = int(rng.integers(2, 60))
        edges = {
            tuple(sorted(map(int, rng.choice(count, 2, replace=False)))) for _ in range(rng.integers(1, 80))
        }
        pairs = [(a, b, float(rng.choice([0.6, 0.7, 0.8]))) for a, b in sorted(edges)]
        expected = resolve_clusters(count, pairs, [(i,) for i in range(count)])
        found = resolve_ordered(
            count,
            np.array([p[0] for p in pairs]),
            np.array([p[1] for p in pairs]),
            np.array([p[2] for p in pairs]),
        )
        assert found.index.tolist() == [d.index for d in expected]
        assert found.kept.tolist() == [d.kept for d in expected]
        assert found.neighbour.tolist() == [d.neighbour for d in expected]
        assert found.jaccard.tolist() == [d.jaccard for d in expected]


def test_band_pair_keys_only_rows_of_repeated_hashes() -> None:
    # hashes 5 5 9 5 7 9 (row 3 excluded): runs {0, 1} of 5 and {2, 5} of 9 -> keys 0*6+1 and 2*6+5
    column = np.array([5, 5, 9, 5, 7, 9], dtype=np.uint64)
    excluded = np.array([False, False, False, True, False, False])
    assert sorted(_band_pair_keys(column, excluded, 0, 1 << 64).tolist()) == [1, 17]
    assert sorted(_band_pair_keys(column, excluded, 6, 1 << 64).tolist()) == [17]
