"""The greedy balanced sampler: hand-worked small cases, and more even than a uniform sample on skew."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from almanac.mirai.balance import Profile, balanced_sample, distribution, imbalance

EVEN = {"date": 1.0, "root": 1.0, "region": 1.0, "country": 1.0}


def test_hand_worked_two_picks() -> None:
    # weights date=1, country=1. Each starts at score 1 (date share 1, squared) + 2 * (1/2)^2 = 1.5: a tie,
    # broken by the seed. If A is first, counts d1=1, X=Y=1/2 and the increases are
    #   B: date 2*1*1+1 = 3, country X 2*(1/2)(1/2)+1/4 = 0.75, Z 0.25 -> 4.0
    #   C: date 1, country X 0.75 + Y 0.75 -> 2.5
    #   D: date 1, country W 0.25 + V 0.25 -> 1.5   => D.
    # If D is first, A and B both cost 1.5 and C costs 3.5 => A or B. Either way two different dates.
    profiles: list[Profile] = [
        {"date": ("d1",), "country": ("X", "Y")},  # A
        {"date": ("d1",), "country": ("X", "Z")},  # B
        {"date": ("d2",), "country": ("X", "Y")},  # C
        {"date": ("d2",), "country": ("W", "V")},  # D
    ]
    weights = {"date": 1.0, "country": 1.0}
    seen_first = set()
    for seed in range(40):
        first, second = balanced_sample(profiles, 2, weights, seed)
        seen_first.add(first)
        if first == 0:
            assert second == 3
        if first == 3:
            assert second in (0, 1)
        assert profiles[first]["date"] != profiles[second]["date"]
    assert len(seen_first) > 1  # the seed does pick among the tied first candidates


def test_heavy_date_weight_spreads_dates_evenly() -> None:
    # 5 dates with 1, 3, 10, 10, 20 candidates; 12 picks. With the date weight dominant the sampler goes
    # round the dates: 5 picks (one each), then 4 (d1 has no candidate left), then 3 of the 4 dates still
    # at two -> d1 = 1 and the others 3, 3, 3, 2 in some order (which one stays at 2 is a tie).
    sizes = {"d1": 1, "d2": 3, "d3": 10, "d4": 10, "d5": 20}
    profiles: list[Profile] = []
    for day, size in sizes.items():
        profiles += [{"date": (day,), "country": (f"C{i % 7}", f"K{i % 5}")} for i in range(size)]
    picks = balanced_sample(profiles, 12, {"date": 1000.0, "country": 1.0}, seed=3)
    counts = Counter(profiles[i]["date"][0] for i in picks)
    assert counts["d1"] == 1
    assert sorted(counts[d] for d in ("d2", "d3", "d4", "d5")) == [2, 3, 3, 3]


def test_zero_weights_give_the_seeded_order() -> None:
    profiles: list[Profile] = [{"date": (f"d{i % 3}",)} for i in range(10)]
    picks = balanced_sample(profiles, 4, {"date": 0.0}, seed=11)
    order = random.Random(11).sample(range(10), 10)
    assert picks == order[:4]


def test_fewer_candidates_than_requested_takes_all() -> None:
    profiles: list[Profile] = [{"date": ("d",)}] * 3
    assert balanced_sample(profiles, 5, {"date": 1.0}, seed=1) == [0, 1, 2]


def test_attribute_without_weight_is_an_error() -> None:
    with pytest.raises(ValueError, match="no balance weight"):
        balanced_sample([{"colour": ("red",)}, {"colour": ("blue",)}], 1, {"date": 1.0}, seed=1)


def _skewed() -> list[Profile]:
    """240 near-identical 'hot' candidates and 60 spread over dates, roots, regions and countries."""
    hot: Profile = {
        "date": ("2025-05-01",),
        "root": ("04",),
        "region": ("Northern America", "Eastern Asia"),
        "country": ("USA", "CHN"),
    }
    countries = [
        ("FRA", "Western Europe"),
        ("RUS", "Eastern Europe"),
        ("EGY", "Northern Africa"),
        ("BRA", "South America"),
        ("AUS", "Oceania"),
        ("NGA", "Western Africa"),
    ]
    spread: list[Profile] = []
    for i in range(60):
        (s, sr), (o, orr) = countries[i % 6], countries[(i // 6 + i + 1) % 6]
        spread.append(
            {
                "date": (f"2025-05-{i % 30 + 1:02d}",),
                "root": (f"{i % 20 + 1:02d}", f"{(i + 7) % 20 + 1:02d}"),
                "region": (sr, orr),
                "country": (s, o),
            }
        )
    return [hot] * 240 + spread


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_more_balanced_than_a_uniform_sample_on_skewed_input(seed: int) -> None:
    profiles = _skewed()
    greedy = balanced_sample(profiles, 30, EVEN, seed)
    uniform = random.Random(seed).sample(range(len(profiles)), 30)
    for attr in EVEN:
        assert imbalance(profiles, greedy, attr) < imbalance(profiles, uniform, attr), attr
    hot_in_greedy = sum(1 for i in greedy if i < 240)
    hot_in_uniform = sum(1 for i in uniform if i < 240)
    # a uniform sample takes about 30 * 240 / 300 = 24 of the hot candidates; the greedy one takes a few
    # (they bring the otherwise absent USA, CHN and their regions) but not even a quarter as many
    assert hot_in_uniform >= 15 and 4 * hot_in_greedy < hot_in_uniform
    assert len(distribution(profiles, greedy)["date"]) > len(distribution(profiles, uniform)["date"])


def test_same_seed_same_sample_other_seed_other_sample() -> None:
    profiles = _skewed()
    assert balanced_sample(profiles, 30, EVEN, 7) == balanced_sample(profiles, 30, EVEN, 7)
    assert set(balanced_sample(profiles, 30, EVEN, 7)) != set(balanced_sample(profiles, 30, EVEN, 8))


def test_distribution_counts_each_query_once_per_value() -> None:
    profiles: list[Profile] = [
        {"region": ("Eastern Asia", "Eastern Asia"), "country": ("CHN", "JPN")},
        {"region": ("Eastern Asia", "Western Europe"), "country": ("CHN", "FRA")},
    ]
    assert distribution(profiles, [0, 1]) == {
        "country": {"CHN": 2, "FRA": 1, "JPN": 1},
        "region": {"Eastern Asia": 2, "Western Europe": 1},
    }
    # fractional counts: Eastern Asia 1 + 1/2, Western Europe 1/2 -> 2.25 + 0.25
    assert imbalance(profiles, [0, 1], "region") == pytest.approx(2.5)
