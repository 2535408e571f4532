"""Continents of countries: the UN M49 region above each sub-region of :mod:`almanac.gdelt.countries`.

MIRAI's authors balance their test queries over this "region" (yecchen/MIRAI
``dataset_construction/7_generate_test_set.py`` maps each actor's ISO alpha-3 code to the ``region`` column
of their ``continents2.csv``: Africa, Americas, Asia, Europe, Oceania). M49 gives Antarctica no region, so
it is left out here and reads as unknown, as in theirs.
"""

from __future__ import annotations

from typing import Final

from almanac.gdelt import countries as c

REGION_CONTINENT: Final[dict[str, str]] = {
    **dict.fromkeys(
        (c.NORTHERN_AFRICA, c.EASTERN_AFRICA, c.MIDDLE_AFRICA, c.SOUTHERN_AFRICA, c.WESTERN_AFRICA), "Africa"
    ),
    **dict.fromkeys((c.CARIBBEAN, c.CENTRAL_AMERICA, c.SOUTH_AMERICA, c.NORTHERN_AMERICA), "Americas"),
    **dict.fromkeys(
        (c.CENTRAL_ASIA, c.EASTERN_ASIA, c.SOUTH_EASTERN_ASIA, c.SOUTHERN_ASIA, c.WESTERN_ASIA), "Asia"
    ),
    **dict.fromkeys((c.EASTERN_EUROPE, c.NORTHERN_EUROPE, c.SOUTHERN_EUROPE, c.WESTERN_EUROPE), "Europe"),
    **dict.fromkeys((c.AUSTRALIA_NZ, c.MELANESIA, c.MICRONESIA, c.POLYNESIA), "Oceania"),
}
ISO3_CONTINENT: Final[dict[str, str]] = {
    code: REGION_CONTINENT[region] for code, region in c.ISO3_REGION.items() if region in REGION_CONTINENT
}


def continent_of_region(region: str) -> str | None:
    """The continent of an M49 sub-region name (None for Antarctica and for names not in the table)."""
    return REGION_CONTINENT.get(region)
