"""Seeded greedy sampling that evens out several attributes at once (dates, root codes, regions, countries).

Each candidate has, per attribute, one or more values (a query has one date but two countries and
possibly several root codes). A chosen candidate adds ``1/k`` to the count of each of its ``k`` values,
so every query weighs the same in every attribute. The imbalance of a sample is

    sum over attributes a of  weight_a * sum over values v of count_a(v) ** 2

which, for a fixed sample size, is smallest when the counts are even (it is the variance of the counts up
to constants). The sampler adds one candidate at a time, always the one that raises the imbalance least;
among equally good candidates it takes the one ranked first by a permutation drawn from ``seed``.
Adding candidate c raises the imbalance by ``sum_a w_a sum_v (2 * share_cv * count_a(v) + share_cv ** 2)``,
kept for every candidate in one array and updated only for candidates that share a value with the pick.

MIRAI's own sampler drew 50 random candidates per step and kept the one that lowered the variance of the
counts most; scanning all candidates makes the result depend on the seed only through tie-breaking.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

Profile = Mapping[str, Sequence[str]]  # attribute -> the candidate's values of it
# Scores are sums of a few hundred rounded shares: 9 decimals separate real differences from float noise.
_DECIMALS = 9


def balanced_sample(
    profiles: Sequence[Profile], size: int, weights: Mapping[str, float], seed: int
) -> list[int]:
    """Indices of ``size`` candidates in the order they were picked (all of them when there are fewer)."""
    if size < 0:
        raise ValueError("sample size must be >= 0")
    unknown = sorted({attr for profile in profiles for attr in profile} - set(weights))
    if unknown:
        raise ValueError(f"no balance weight for attributes {unknown}")
    count = len(profiles)
    if size >= count:
        return list(range(count))
    order = random.Random(seed).sample(range(count), count)
    rank = np.empty(count, dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(count)

    score = np.zeros(count, dtype=np.float64)
    shares: list[list[tuple[tuple[str, str], float]]] = []
    holders: dict[tuple[str, str], tuple[list[int], list[float]]] = {}
    for index, profile in enumerate(profiles):
        own: list[tuple[tuple[str, str], float]] = []
        for attr, values in sorted(profile.items()):
            weight = float(weights[attr])
            if weight < 0:
                raise ValueError(f"balance weight of {attr!r} must be >= 0")
            if not values or weight == 0:
                continue
            for value, times in sorted(Counter(values).items()):
                share = times / len(values)
                score[index] += weight * share * share
                own.append(((attr, value), share))
                members, member_shares = holders.setdefault((attr, value), ([], []))
                members.append(index)
                member_shares.append(share)
        shares.append(own)
    arrays = {key: (np.asarray(m, dtype=np.int64), np.asarray(s)) for key, (m, s) in holders.items()}

    taken = np.zeros(count, dtype=bool)
    picks: list[int] = []
    for _ in range(size):
        keyed = np.where(taken, np.inf, np.round(score, _DECIMALS))
        tied = np.flatnonzero(keyed == keyed.min())
        pick = int(tied[np.argmin(rank[tied])])
        picks.append(pick)
        taken[pick] = True
        for (attr, value), share in shares[pick]:
            members_array, shares_array = arrays[(attr, value)]
            score[members_array] += 2.0 * float(weights[attr]) * share * shares_array
    return picks


def distribution(profiles: Sequence[Profile], indices: Sequence[int]) -> dict[str, dict[str, int]]:
    """Per attribute and value, how many of the chosen candidates have that value (at most once each)."""
    tally: dict[str, Counter[str]] = {}
    for index in indices:
        for attr, values in profiles[index].items():
            tally.setdefault(attr, Counter()).update(set(values))
    return {attr: dict(sorted(counter.items())) for attr, counter in sorted(tally.items())}


def imbalance(profiles: Sequence[Profile], indices: Sequence[int], attr: str) -> float:
    """Sum of squared fractional counts of one attribute: lower is more even (the sampler's objective)."""
    counts: dict[str, float] = {}
    for index in indices:
        values = profiles[index].get(attr, ())
        for value in values:
            counts[value] = counts.get(value, 0.0) + 1 / len(values)
    return float(sum(n * n for n in counts.values()))
