"""The continent each country's sub-region lies in (what MIRAI's authors balance as "region")."""

from __future__ import annotations

from datetime import date

import pytest

from almanac.gdelt.countries import ISO3_REGION
from almanac.mirai.admission import Group
from almanac.mirai.continents import continent_of_region
from almanac.mirai.split_config import UNKNOWN_REGION, RelationSplitConfig, profile, sampler_weights


def test_every_sub_region_but_antarctica_has_a_continent() -> None:
    missing = sorted({region for region in ISO3_REGION.values() if continent_of_region(region) is None})
    assert missing == ["Antarctica"]


def test_continents_of_a_few_countries_by_hand() -> None:
    # UN M49: Mexico is in Central America (Americas), Turkey in Western Asia, Egypt in Northern Africa,
    # Russia in Eastern Europe, Fiji in Melanesia (Oceania)
    expected = {"MEX": "Americas", "TUR": "Asia", "EGY": "Africa", "RUS": "Europe", "FJI": "Oceania"}
    assert {code: continent_of_region(ISO3_REGION[code]) for code in expected} == expected


def test_the_profile_reads_the_subjects_continent_and_country_as_the_authors() -> None:
    group = Group(date(2025, 5, 6), "USA", "ATA")
    group.add("042", 150, ["https://x.example/1"], frozenset())
    group.add("190", 120, ["https://x.example/2"], frozenset())
    group.test_relations = {"042"}  # the root of the test events only, as the authors sample test events
    assert profile(group, ISO3_REGION, "subject") == {
        "date": ("2025-05-06",),
        "root": ("04",),
        "continent": ("Americas",),
        "region": ("Northern America",),
        "country": ("USA",),
    }
    both = profile(group, ISO3_REGION, "both")
    assert both["continent"] == ("Americas", UNKNOWN_REGION)  # Antarctica has no M49 region
    assert both["country"] == ("USA", "ATA")


def test_variance_weights_divide_by_the_number_of_values_of_each_attribute() -> None:
    def group(day: int, subject: str, obj: str, relation: str) -> Group:
        made = Group(date(2025, 5, day), subject, obj)
        made.add(relation, 150, [], frozenset())
        return made

    groups = [group(1, "USA", "CHN", "042"), group(1, "FRA", "DEU", "043"), group(2, "USA", "RUS", "190")]
    # values over both actors (the authors' count dicts hold Actor2's values too): dates {1, 2} = 2,
    # roots {04, 19} = 2, continents {Americas, Asia, Europe} = 3, sub-regions {Northern America,
    # Eastern Asia, Western Europe, Eastern Europe} = 4, countries {USA, CHN, FRA, DEU, RUS} = 5
    assert sampler_weights(RelationSplitConfig(), groups, ISO3_REGION) == pytest.approx(
        {"date": 1 / 2, "root": 1 / 2, "continent": 0.4 / 3, "region": 0.0, "country": 0.2 / 5}
    )
    squares = RelationSplitConfig(balance_objective="squares")
    assert sampler_weights(squares, groups, ISO3_REGION) == squares.weights()
    with pytest.raises(ValueError, match=r"relation_split\.admission must be one of every, any"):
        RelationSplitConfig(admission="all")
