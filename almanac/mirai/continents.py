"""Continents of countries: the UN M49 region above each sub-region that almanac.gdelt.countries names.

MIRAI's authors balance their test queries over this "region" (yecchen/MIRAI
``dataset_construction/7_generate_test_set.py`` maps each actor's ISO alpha-3 code to the ``region`` column
of their ``continents2.csv``: Africa, Americas, Asia, Europe, Oceania). M49 gives Antarctica no region, so
it is left out here and reads as unknown, as in theirs. The sub-region names are written out (not
imported) so that the MIRAI stages depend on no GDELT module for them; tests/mirai/test_continents.py
checks every sub-region of the country table but Antarctica has its continent.
"""

from __future__ import annotations

from typing import Final

_BY_CONTINENT: Final = {
    "Africa": ("Northern Africa", "Eastern Africa", "Middle Africa", "Southern Africa", "Western Africa"),
    "Americas": ("Caribbean", "Central America", "South America", "Northern America"),
    "Asia": ("Central Asia", "Eastern Asia", "South-eastern Asia", "Southern Asia", "Western Asia"),
    "Europe": ("Eastern Europe", "Northern Europe", "Southern Europe", "Western Europe"),
    "Oceania": ("Australia and New Zealand", "Melanesia", "Micronesia", "Polynesia"),
}
REGION_CONTINENT: Final[dict[str, str]] = {
    region: continent for continent, regions in _BY_CONTINENT.items() for region in regions
}


def continent_of_region(region: str) -> str | None:
    """The continent of an M49 sub-region name (None for Antarctica and for names not in the table)."""
    return REGION_CONTINENT.get(region)
