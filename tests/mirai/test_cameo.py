"""CAMEO code checks, quad classes under both mappings and the optional codebook reader."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from almanac.mirai.cameo import (
    QUAD_MAPPINGS,
    ROOT_CODES,
    ROOT_NAMES,
    binary_class,
    is_relation_code,
    is_root_code,
    load_codebook,
    quad_class,
    relation_name,
    root_of,
)

REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "gdelt"


@pytest.mark.parametrize("code", ["010", "042", "190", "204"])
def test_second_level_codes(code: str) -> None:
    assert is_relation_code(code)
    assert root_of(code) == code[:2]


@pytest.mark.parametrize("code", ["42", "0421", "abc", "", "004", "210", "٠٤٢", " 42", 42, None])
def test_not_second_level_codes(code: object) -> None:
    assert not is_relation_code(code)


def test_root_codes() -> None:
    assert ROOT_CODES[0] == "01" and ROOT_CODES[-1] == "20" and len(ROOT_CODES) == 20
    assert is_root_code("04") and not is_root_code("4") and not is_root_code("00") and not is_root_code("21")
    assert root_of("04") == "04"
    for bad in ("4", "0421", "--", "x04"):
        with pytest.raises(ValueError, match="not a CAMEO"):
            root_of(bad)


def test_gdelt_quad_class_boundaries() -> None:
    # GDELT QuadClass: 01-05 verbal coop, 06-09 material coop, 10-14 verbal conflict, 15-20 material conflict
    expected = {
        "01": 1, "05": 1,
        "06": 2, "09": 2,
        "10": 3, "14": 3,
        "15": 4, "16": 4, "20": 4,
    }  # fmt: skip
    assert {root: quad_class(root, "gdelt") for root in expected} == expected
    assert quad_class("051", "gdelt") == 1 and quad_class("091", "gdelt") == 2
    assert quad_class("141", "gdelt") == 3 and quad_class("150", "gdelt") == 4


def test_mirai_quad_class_boundaries() -> None:
    # MIRAI: 01-04, 05-08, 09-16, 17-20
    expected = {
        "01": 1, "04": 1,
        "05": 2, "08": 2,
        "09": 3, "13": 3, "14": 3, "15": 3, "16": 3,
        "17": 4, "20": 4,
    }  # fmt: skip
    assert {root: quad_class(root, "mirai") for root in expected} == expected
    assert quad_class("051", "mirai") == 2 and quad_class("141", "mirai") == 3


def test_mappings_differ_exactly_on_roots_05_09_15_16() -> None:
    # 05: gdelt 1 (01-05) vs mirai 2 (05-08); 09: gdelt 2 (06-09) vs mirai 3 (09-16);
    # 15, 16: gdelt 4 (15-20) vs mirai 3 (09-16); 14 is 3 under both (10-14 and 09-16)
    differ = {
        r: (QUAD_MAPPINGS["gdelt"][r], QUAD_MAPPINGS["mirai"][r])
        for r in range(1, 21)
        if QUAD_MAPPINGS["gdelt"][r] != QUAD_MAPPINGS["mirai"][r]
    }
    assert differ == {5: (1, 2), 9: (2, 3), 15: (4, 3), 16: (4, 3)}


def test_binary_class_differs_only_on_root_09() -> None:
    # cooperation = quad classes 1-2: roots 01-09 under gdelt, 01-08 under mirai
    gdelt = [binary_class(root, "gdelt") for root in ROOT_CODES]
    mirai = [binary_class(root, "mirai") for root in ROOT_CODES]
    assert gdelt == ["cooperation"] * 9 + ["conflict"] * 11
    assert mirai == ["cooperation"] * 8 + ["conflict"] * 12
    assert [root for root, g, m in zip(ROOT_CODES, gdelt, mirai, strict=True) if g != m] == ["09"]
    assert binary_class("091", "gdelt") == "cooperation" and binary_class("091", "mirai") == "conflict"


def test_unknown_mapping() -> None:
    with pytest.raises(ValueError, match="unknown quad mapping"):
        quad_class("04", "cameo")


def test_codebook_reader_keeps_roots_and_second_level_codes(tmp_path: Path) -> None:
    path = tmp_path / "codes.txt"
    # header, a class heading, a root, two base codes, a third-level code, a blank description
    path.write_bytes(
        b"CODE\tLABEL\r\n1\tFriendly talk\r\n04\tTALK\r\n040\tTalk, generic\r\n042\tGo and see\r\n"
        b"0421\tToo fine\r\n043\t\r\n"
    )
    assert load_codebook(path) == {"04": "TALK", "040": "Talk, generic", "042": "Go and see"}
    names = load_codebook(path)
    assert relation_name("042", names) == "Go and see"
    assert relation_name("043", names) == "consultation or meeting (043)"  # falls back to the root's name
    assert relation_name("19") == ROOT_NAMES["19"]


def test_codebook_without_codes_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "empty.txt"
    path.write_text("CODE\tLABEL\nabc\tnothing\n")
    with pytest.raises(ValueError, match="no CAMEO"):
        load_codebook(path)


def test_real_codebook_when_present() -> None:
    path = REALDATA / "CAMEO.eventcodes.txt"
    if not path.exists():
        pytest.skip(f"{path} not found (shared realdata folder missing)")
    names = load_codebook(path)
    assert all(root in names for root in ROOT_CODES)
    assert all(len(code) in (2, 3) for code in names)
    assert "042" in names and "190" in names


def test_real_export_quad_class_matches_gdelt_mapping() -> None:
    # The file is GDELT 2.0's raw export: tab-separated, no header, 61 fields; EventRootCode is field 28
    # and QuadClass field 29 (0-based). By `cut -f29,30 | sort | uniq -c` it has 2,116 rows covering all
    # 20 roots, so every class boundary of the mapping is exercised.
    path = REALDATA / "20151027220000.export.CSV"
    if not path.exists():
        pytest.skip(f"{path} not found (shared realdata folder missing)")
    checked = 0
    roots_seen: set[str] = set()
    mismatches: list[tuple[int, str, str]] = []
    with open(path, encoding="utf-8", newline="") as handle:
        for line_number, row in enumerate(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE), 1):
            root, quad = row[28], row[29]
            if not (root.isascii() and root.isdigit()):
                continue  # e.g. "--": no root to classify
            checked += 1
            roots_seen.add(root)
            if quad_class(root, "gdelt") != int(quad):
                mismatches.append((line_number, root, quad))
    assert mismatches == []
    assert checked == 2116 and roots_seen == set(ROOT_CODES)
