"""relation_split's configuration and the profile its balanced sampler evens out.

The defaults follow MIRAI's authors where the paper is silent (README "MIRAI as its authors built it"):
answers only from events with text, every loud event with enough texts, and the sampler of
``dataset_construction/8_generate_test_subset.py``: the variances of the counts of dates, root codes,
continents and countries, weighted 1, 1, 0.4 and 0.2, where continent and country are the subject's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from almanac.mirai.admission import Group
from almanac.mirai.balance import Profile
from almanac.mirai.continents import continent_of_region

UNKNOWN_REGION = "Unknown"
BALANCED_ATTRIBUTES = ("date", "root", "continent", "region", "country")
ADMISSIONS = ("every", "any")  # every / any event past the mention threshold needs the articles
BALANCE_ACTORS = ("subject", "both")  # whose continent and country are balanced
BALANCE_OBJECTIVES = ("variance", "squares")  # weighted variances of the counts, or sums of squares


@dataclass(frozen=True)
class BalanceWeights:
    """MIRAI's authors (8_generate_test_subset.py): date 1, code (root) 1, region 0.4, country 0.2, where
    their region is the continent; the M49 sub-region (``region`` here) is reported, weighted 0."""

    date: float = 1.0
    root: float = 1.0
    region: float = 0.0
    country: float = 0.2
    continent: float = 0.4


@dataclass(frozen=True)
class RelationSplitConfig:
    min_daily_mentions: int = 100  # MIRAI test split: 100 (per event under paper, per group under relaxed)
    min_articles: int = 5  # MIRAI: 5 (paper: articles with surviving text per event; relaxed: group URLs)
    queries_per_month: int = 100
    seed: int = 7
    balance_weights: BalanceWeights = field(default_factory=BalanceWeights)
    horizons_days: tuple[int, ...] = (1, 7, 30, 90)
    answers_need_text: bool = True  # paper: an event without any surviving text is no answer (authors)
    admission: str = "every"  # paper: every (authors) or any event past the mention threshold
    balance_actors: str = "subject"  # the authors' sampler reads the subject's continent and country
    balance_objective: str = "variance"  # the authors' np.var of the counts (each value counted, 0 too)

    def __post_init__(self) -> None:
        for name, choices in (
            ("admission", ADMISSIONS),
            ("balance_actors", BALANCE_ACTORS),
            ("balance_objective", BALANCE_OBJECTIVES),
        ):
            if getattr(self, name) not in choices:
                raise ValueError(f"relation_split.{name} must be one of {', '.join(choices)}")
        if self.min_daily_mentions < 0 or self.min_articles < 0:
            raise ValueError("relation_split thresholds must be >= 0")
        if self.queries_per_month < 1:
            raise ValueError("relation_split.queries_per_month must be >= 1")
        if any(days < 0 for days in self.horizons_days) or len(set(self.horizons_days)) != len(
            self.horizons_days
        ):
            raise ValueError("relation_split.horizons_days must be distinct non-negative day counts")

    def weights(self) -> dict[str, float]:
        return {name: float(getattr(self.balance_weights, name)) for name in BALANCED_ATTRIBUTES}


def _tested(group: Group) -> set[str]:
    return group.relations if group.test_relations is None else group.test_relations


def region_of(country: str, regions: Mapping[str, str]) -> str:
    return regions.get(country, UNKNOWN_REGION)


def profile(group: Group, regions: Mapping[str, str], actors: str = "both") -> Profile:
    """What the sampler balances: the date, the roots of the test events (the authors sample test
    events, each with its own root), and the continent, sub-region and country of the subject (the
    authors' sampler: ``Actor1...append(Actor2...).values[0]`` is the subject's) or of both actors."""
    countries = (group.subject,) if actors == "subject" else (group.subject, group.object)
    return {
        "date": (group.day.isoformat(),),
        "root": tuple(sorted({code[:2] for code in _tested(group)})),
        "continent": tuple(continent_of(country, regions) for country in countries),
        "region": tuple(region_of(country, regions) for country in countries),
        "country": countries,
    }


def continent_of(country: str, regions: Mapping[str, str]) -> str:
    return continent_of_region(regions.get(country, "")) or UNKNOWN_REGION


def sampler_weights(
    config: RelationSplitConfig, groups: Sequence[Group], regions: Mapping[str, str]
) -> dict[str, float]:
    """The weights handed to the sampler. ``variance`` (the authors' np.var of the counts of every value
    seen, both actors' values included) divides each weight by its attribute's number of values: for a
    fixed sample size, the variance is the sum of squared counts over that number, minus a constant."""
    weights = config.weights()
    if config.balance_objective == "squares":
        return weights
    pools: dict[str, set[str]] = {}
    for group in groups:
        for attr, values in profile(group, regions, "both").items():
            pools.setdefault(attr, set()).update(values)
    return {attr: weight / max(1, len(pools.get(attr, ()))) for attr, weight in weights.items()}
