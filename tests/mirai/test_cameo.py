"""CAMEO code checks, quad classes under both mappings and the optional codebook reader."""

from __future__ import annotations

import csv
import fnmatch
import tomllib
from pathlib import Path

import pytest

from almanac.mirai.cameo import (
    CAMEO_CODES,
    CAMEO_TABLE_FILE,
    QUAD_MAPPINGS,
    ROOT_CODES,
    ROOT_NAMES,
    SECOND_LEVEL_CODES,
    _read_table,
    binary_class,
    is_cameo_code,
    is_relation_code,
    is_root_code,
    load_codebook,
    quad_class,
    relation_name,
    root_of,
)

REALDATA = Path(__file__).resolve().parents[3] / "shared" / "realdata" / "gdelt"
REPO = Path(__file__).resolve().parents[2]


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
    # not in the user's codebook: the shipped table's label
    assert relation_name("043", names) == CAMEO_CODES["043"] != ""
    assert relation_name("19") == ROOT_NAMES["19"] == CAMEO_CODES["19"]


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


# Second-level codes per root in CAMEO 1.1b3 (the codebook's numbering: 010-019, 020-028, ...), counted
# from its tables (e.g. 11: 110-116, 19: 190-196, 20: 200-204):
# 10 + 9 + 10 + 7 + 8 + 5 + 6 + 8 + 5 + 9 = 77; 7 + 10 + 10 + 6 + 6 + 7 + 7 + 7 + 7 + 5 = 72; 77 + 72 = 149
PER_ROOT = {
    "01": 10, "02": 9, "03": 10, "04": 7, "05": 8, "06": 5, "07": 6, "08": 8, "09": 5, "10": 9,
    "11": 7, "12": 10, "13": 10, "14": 6, "15": 6, "16": 7, "17": 7, "18": 7, "19": 7, "20": 5,
}  # fmt: skip


def test_shipped_table_has_the_20_roots_and_149_second_level_codes() -> None:
    assert sum(PER_ROOT.values()) == 149
    assert [code for code in CAMEO_CODES if len(code) == 2] == list(ROOT_CODES)
    assert len(SECOND_LEVEL_CODES) == 149 and len(CAMEO_CODES) == 169
    counts = {root: sum(code[:2] == root for code in SECOND_LEVEL_CODES) for root in ROOT_CODES}
    assert counts == PER_ROOT
    # each root's codes run from <root>0 without gaps (010..019, 020..028, ...)
    for root, n in PER_ROOT.items():
        assert {code for code in SECOND_LEVEL_CODES if code[:2] == root} == {f"{root}{i}" for i in range(n)}
    assert all(label.strip() == label and label for label in CAMEO_CODES.values())


@pytest.mark.parametrize(
    ("code", "exists"),
    [("042", True), ("106", True), ("155", True), ("176", True), ("204", True), ("049", False),
     ("109", False), ("205", False), ("0421", False), ("04", False), (42, False), (None, False)],
)  # fmt: skip
def test_is_cameo_code(code: object, exists: bool) -> None:
    assert is_cameo_code(code) is exists


def test_real_codebook_lists_the_same_codes_when_present() -> None:
    path = REALDATA / "CAMEO.eventcodes.txt"
    if not path.exists():
        pytest.skip(f"{path} not found (shared realdata folder missing)")
    names = load_codebook(path)
    real = {code for code in names if len(code) == 3}
    # The real file loses 106 (its line is glued to 1056's: "...engagement106:[-5.0] Demand withdrawal")
    # and predates the two cyber codes of CAMEO 1.1b3, 155 and 176. Otherwise the same 146 codes.
    assert len(real) == 146
    assert SECOND_LEVEL_CODES - real == {"106", "155", "176"} and real <= SECOND_LEVEL_CODES
    assert "106:" in path.read_text(encoding="utf-8-sig")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("01\tx\n0421\tthird level\n", "not a 'code<TAB>label' line"),
        ("01\tx\n210\tno root 21\n", "not a 'code<TAB>label' line"),
        ("01\tx\n010\n", "not a 'code<TAB>label' line"),  # no label
        ("01\tx\n010\ta\n010\tb\n", "not a 'code<TAB>label' line"),  # repeated
        ("# only a comment\n01\tx\n", "roots missing"),
    ],
)
def test_table_reader_rejects_bad_lines(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _read_table(text, "test.tsv")


def test_table_ships_with_the_package() -> None:
    # The wheel and sdist carry only what package-data names (the dev setup installs in editable mode,
    # where the file is read from the source tree, so a missing entry would only show in a real install).
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["almanac.mirai"]
    assert any(fnmatch.fnmatch(CAMEO_TABLE_FILE, pattern) for pattern in patterns)
    assert (REPO / "almanac" / "mirai" / CAMEO_TABLE_FILE).is_file()
