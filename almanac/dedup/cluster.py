"""Turn verified near-duplicate pairs into clusters and choose the one article each cluster keeps."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


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
