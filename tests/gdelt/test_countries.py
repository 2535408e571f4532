"""CAMEO -> ISO 3166 country table and the ISO -> UN M49 region / name tables."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from almanac.gdelt.countries import (
    CAMEO_NOT_COUNTRIES,
    CAMEO_TO_ISO3,
    ISO3_NAME,
    ISO3_REGION,
    iso3_of,
    why_not_a_country,
)

REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "gdelt"
ACTOR1_COUNTRY, ACTOR2_COUNTRY = 7, 17  # 0-based field positions in an export row


@pytest.mark.parametrize(
    ("cameo", "iso3", "region"),
    [
        ("ROM", "ROU", "Eastern Europe"),  # Romania: ISO's pre-2002 code, still CAMEO's
        ("TMP", "TLS", "South-eastern Asia"),  # East Timor
        ("IMY", "IMN", "Northern Europe"),  # Isle of Man
        ("MTN", "MNE", "Southern Europe"),  # Montenegro
        ("ZAR", "COD", "Middle Africa"),  # Zaire -> DR Congo
        ("COD", "COD", "Middle Africa"),
        ("WSB", "PSE", "Western Asia"),  # West Bank
        ("GZS", "PSE", "Western Asia"),  # Gaza Strip
        ("USA", "USA", "Northern America"),
        ("CHN", "CHN", "Eastern Asia"),
        ("DEU", "DEU", "Western Europe"),
        ("NGA", "NGA", "Western Africa"),
        ("MEX", "MEX", "Central America"),
        ("IRN", "IRN", "Southern Asia"),
        ("TUR", "TUR", "Western Asia"),
        ("AUS", "AUS", "Australia and New Zealand"),
        ("SSD", "SSD", "Eastern Africa"),  # coded by GDELT since 2011, after the 2012 codebook's list
    ],
)
def test_cameo_codes_map_to_iso_and_region(cameo: str, iso3: str, region: str) -> None:
    assert CAMEO_TO_ISO3[cameo] == iso3
    assert iso3_of(cameo) == iso3
    assert ISO3_REGION[iso3] == region


def test_current_iso_code_of_an_exception_also_maps_to_itself() -> None:
    assert iso3_of("ROU") == "ROU" and iso3_of("TLS") == "TLS" and iso3_of("MNE") == "MNE"
    assert iso3_of(" rom ") == "ROU"  # case and stray spaces do not matter


@pytest.mark.parametrize(
    ("code", "why"),
    [
        ("AFR", "region: Africa"),
        ("EUR", "region: Europe"),
        ("WST", "region: the West"),
        ("MEA", "region: Middle East"),
        ("YUG", "outdated: Yugoslavia"),
        ("SCG", "outdated: Serbia and Montenegro, split in 2006"),
        ("USR", "outdated: Soviet Union"),
        ("ANT", "outdated: Netherlands Antilles, dissolved in 2010"),
        ("KSV", "Kosovo has no ISO 3166-1 code"),
    ],
)
def test_regions_and_outdated_states_map_to_nothing(code: str, why: str) -> None:
    assert code not in CAMEO_TO_ISO3
    assert iso3_of(code) is None
    assert why_not_a_country(code) == why


def test_unknown_and_missing_codes() -> None:
    assert iso3_of(None) is None
    assert iso3_of("XYZ") is None
    assert why_not_a_country("XYZ") == "not a CAMEO country code"


def test_tables_are_consistent() -> None:
    assert len(ISO3_NAME) == 249  # every officially assigned ISO 3166-1 code
    assert set(ISO3_REGION) == set(ISO3_NAME)
    assert all(len(code) == 3 and code.isupper() and code.isalpha() for code in ISO3_NAME)
    # every CAMEO code lands on a code that has a region and a name
    assert set(CAMEO_TO_ISO3.values()) <= set(ISO3_NAME)
    assert not set(CAMEO_NOT_COUNTRIES) & set(CAMEO_TO_ISO3)
    assert ISO3_NAME["ROU"] == "Romania" and ISO3_NAME["TLS"] == "Timor-Leste"
    # intermediate regions replace the two huge M49 sub-regions
    assert "Sub-Saharan Africa" not in ISO3_REGION.values()
    assert "Latin America and the Caribbean" not in ISO3_REGION.values()
    assert (
        sum(region.endswith("Africa") and region != "Northern Africa" for region in ISO3_REGION.values())
        == 53
    )


def test_every_country_code_in_the_real_exports_is_known() -> None:
    """Each actor country code in the real GDELT files maps to ISO or is a known non-country."""
    if not REALDATA.is_dir():
        pytest.skip(f"real GDELT samples not found at {REALDATA}")
    lines = (REALDATA / "20151027220000.export.CSV").read_text(encoding="utf-8").splitlines()
    with zipfile.ZipFile(REALDATA / "20190121220000.export.CSV.zip") as archive:
        for name in archive.namelist():
            lines += archive.read(name).decode("utf-8").splitlines()
    codes = set()
    for line in lines:
        fields = line.split("\t")
        codes |= {fields[ACTOR1_COUNTRY], fields[ACTOR2_COUNTRY]} - {""}
    assert len(codes) > 50
    unknown = sorted(code for code in codes if iso3_of(code) is None and code not in CAMEO_NOT_COUNTRIES)
    assert unknown == []
    # the regional codes really occur in GDELT's country field
    assert {"AFR", "EUR", "WST"} <= codes
