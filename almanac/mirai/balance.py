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
    negative = sorted(attr for attr, weight in weights.items() if weight < 0)
    if negative:
        raise ValueError(f"balance weights must be >= 0: {negative}")
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
    return float(sum(n * n for n in fractional_counts(profiles, indices, attr).values()))


def fractional_counts(profiles: Sequence[Profile], indices: Sequence[int], attr: str) -> dict[str, float]:
    """Per value of ``attr``: the chosen candidates' count, a candidate with k values adding 1/k to each."""
    counts: dict[str, float] = {}
    for index in indices:
        values = profiles[index].get(attr, ())
        for value in values:
            counts[value] = counts.get(value, 0.0) + 1 / len(values)
    return counts


def uniform_target(available: Mapping[str, float], size: float) -> dict[str, float]:
    """The most even counts a sample of ``size`` can reach when value v offers only ``available[v]``.

    Water-filling: every value gets the same level t, capped by what it has, with sum(min(a_v, t)) =
    size. That is what "uniform over dates, countries and CAMEO types" can mean on a finite pool: a
    value with fewer candidates than the level is taken whole, the rest share the remainder evenly.
    """
    remaining = float(size)
    target: dict[str, float] = {}
    pending = sorted(available.items(), key=lambda item: (item[1], item[0]))
    while pending:
        level = remaining / len(pending)
        value, have = pending[0]
        if have > level:
            for value, _ in pending:
                target[value] = level
            break
        target[value] = have
        remaining -= have
        pending.pop(0)
    return dict(sorted(target.items()))


def balance_summary(
    profiles: Sequence[Profile], picks: Sequence[int], weights: Mapping[str, float]
) -> dict[str, dict[str, object]]:
    """Per attribute: the achieved fractional counts of the sample next to the uniform target.

    ``deviation`` is half the sum of |achieved - target| over values: the number of queries that would
    have to move to reach the target (0 = the target exactly). Attributes weighted 0 are reported too,
    so the cost of not balancing them is visible.
    """
    summary: dict[str, dict[str, object]] = {}
    every = range(len(profiles))
    attributes = sorted({attr for profile in profiles for attr in profile} | set(weights))
    for attr in attributes:
        available = fractional_counts(profiles, every, attr)
        achieved = fractional_counts(profiles, picks, attr)
        target = uniform_target(available, sum(achieved.values()))
        deviation = sum(abs(achieved.get(v, 0.0) - target.get(v, 0.0)) for v in available) / 2
        summary[attr] = {
            "weight": float(weights.get(attr, 0.0)),
            "values_in_candidates": len(available),
            "values_in_sample": len(achieved),
            "deviation": round(deviation, 3),
            "values": {
                value: {
                    "candidates": round(available[value], 3),
                    "target": round(target.get(value, 0.0), 3),
                    "achieved": round(achieved.get(value, 0.0), 3),
                }
                for value in sorted(available)
            },
        }
    return summary
