"""Turn verified near-duplicate pairs into clusters and choose the one article each cluster keeps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt


class UnionFind:
    """Disjoint sets over ``0..n-1`` with path halving and union by size."""

    def __init__(self, size: int) -> None:
        self.parent = list(range(size))
        self.size = [1] * size

    def find(self, item: int) -> int:
        parent = self.parent
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    def union(self, left: int, right: int) -> None:
        root_left, root_right = self.find(left), self.find(right)
        if root_left == root_right:
            return
        if self.size[root_left] < self.size[root_right]:
            root_left, root_right = root_right, root_left
        self.parent[root_right] = root_left
        self.size[root_left] += self.size[root_right]


@dataclass(frozen=True)
class Duplicate:
    index: int  # the dropped article
    kept: int  # the article its cluster keeps
    neighbour: int  # the article it was verified against (its strongest edge)
    jaccard: float


def resolve_clusters(
    count: int, pairs: Sequence[tuple[int, int, float]], order_keys: Sequence[tuple[object, ...]]
) -> list[Duplicate]:
    """Each cluster keeps its member with the smallest ``order_keys`` entry; the rest are duplicates.

    ``order_keys`` is (publish date, id) per article, so the earliest publication wins and ties are
    broken by the stable id, not by input order.
    """
    sets = UnionFind(count)
    strongest: dict[int, tuple[float, int]] = {}
    for left, right, similarity in pairs:
        sets.union(left, right)
        for member, other in ((left, right), (right, left)):
            best = strongest.get(member)
            if best is None or (similarity, -other) > (best[0], -best[1]):
                strongest[member] = (similarity, other)
    keeper: dict[int, int] = {}
    for member in sorted(strongest):
        root = sets.find(member)
        current = keeper.get(root)
        if current is None or order_keys[member] < order_keys[current]:
            keeper[root] = member
    duplicates = []
    for member in sorted(strongest):
        kept = keeper[sets.find(member)]
        if member != kept:
            similarity, neighbour = strongest[member]
            duplicates.append(Duplicate(member, kept, neighbour, similarity))
    return duplicates


@dataclass(frozen=True)
class DuplicateArrays:
    """:class:`Duplicate` rows as arrays, ascending by ``index`` (no Python object per document)."""

    index: npt.NDArray[np.int64]
    kept: npt.NDArray[np.int64]
    neighbour: npt.NDArray[np.int64]
    jaccard: npt.NDArray[np.float64]


def resolve_ordered(
    count: int,
    left: npt.NDArray[np.integer[Any]],
    right: npt.NDArray[np.integer[Any]],
    similarity: npt.NDArray[np.float64],
) -> DuplicateArrays:
    """:func:`resolve_clusters` when the order keys are the indices themselves (a smaller index is the
    earlier article), in numpy: the same duplicates, kept articles, strongest neighbours and scores.

    Clusters by minimum-label propagation with pointer jumping: every node starts as its own label, each
    round gives both ends of every edge the smaller of their labels and then follows labels once; at the
    fixed point the labels agree across every edge, so each cluster carries one label, its smallest
    index, which is the member it keeps. Node numbers are int32 when ``count`` allows (at 10M articles
    these arrays are the largest of the stage's clustering step)."""
    index = np.int32 if count < 2**31 else np.int64
    labels = np.arange(count, dtype=index)
    while len(left):
        low = np.minimum(labels[left], labels[right])
        updated = labels.copy()
        np.minimum.at(updated, left, low)
        np.minimum.at(updated, right, low)
        del low
        updated = updated[updated]
        if np.array_equal(updated, labels):
            break
        labels = updated
        del updated
    # strongest edge of each member: highest similarity, then the smallest other end (as (sim, -other))
    edges = len(left)
    member = np.empty(2 * edges, dtype=index)
    member[:edges], member[edges:] = left, right
    other = np.empty(2 * edges, dtype=index)
    other[:edges], other[edges:] = right, left
    score = np.concatenate([similarity, similarity])
    order = np.lexsort((other, -score, member))
    member, other, score = member[order], other[order], score[order]
    del order
    first = np.concatenate(([True], member[1:] != member[:-1])) if len(member) else np.zeros(0, dtype=bool)
    member, other, score = member[first], other[first], score[first]
    dropped = labels[member] != member
    found = member[dropped]
    return DuplicateArrays(
        found.astype(np.int64),
        labels[found].astype(np.int64),
        other[dropped].astype(np.int64),
        score[dropped],
    )
