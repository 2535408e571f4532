"""CAMEO relation codes: validation, root codes, quad and binary classes, readable names.

A first-level (root) code is two digits "01".."20"; a second-level code is three digits whose first two
are a root ("042" is under "04"). Third-level codes ("0421") are not relations in MIRAI-style data: the
cleaning stage keeps GDELT's EventBaseCode, which is at most three digits.

Two ways of folding the 20 roots into four classes are in use: GDELT's own QuadClass (01-05, 06-09,
10-14, 15-20, as every row of the real exports shows) and the one MIRAI evaluates with (01-04, 05-08,
09-16, 17-20). They disagree on roots 05, 09, 15 and 16. GDELT puts roots 01-09 on the cooperation side
and MIRAI only 01-08, so the binary (cooperation / conflict) class differs too, on root 09 alone.

Which second-level codes exist is read from ``data/cameo.tsv`` (shipped with the package): the 20 roots
and their 149 base codes ("010".."019", ..., "200".."204", including the later cyber codes 155 and 176),
each with a short label written for this project. A well-formed three-digit code that is not in the
table ("049", "109") is not a CAMEO relation: the scorer counts it as invalid instead of scoring it.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from types import MappingProxyType

ROOT_CODES: tuple[str, ...] = tuple(f"{number:02d}" for number in range(1, 21))
_ROOTS = frozenset(ROOT_CODES)

VERBAL_COOPERATION, MATERIAL_COOPERATION, VERBAL_CONFLICT, MATERIAL_CONFLICT = 1, 2, 3, 4
QUAD_NAMES: Mapping[int, str] = MappingProxyType(
    {
        VERBAL_COOPERATION: "verbal cooperation",
        MATERIAL_COOPERATION: "material cooperation",
        VERBAL_CONFLICT: "verbal conflict",
        MATERIAL_CONFLICT: "material conflict",
    }
)
COOPERATION, CONFLICT = "cooperation", "conflict"
BINARY_CLASSES: tuple[str, str] = (COOPERATION, CONFLICT)


def _classes(bounds: tuple[int, int, int]) -> Mapping[int, int]:
    """Root number -> quad class, given the last root of classes 1, 2 and 3."""
    first, second, third = bounds
    table = {}
    for root in range(1, 21):
        table[root] = 1 if root <= first else 2 if root <= second else 3 if root <= third else 4
    return MappingProxyType(table)


# root number (1..20) -> quad class (1..4)
QUAD_MAPPINGS: Mapping[str, Mapping[int, int]] = MappingProxyType(
    {
        "gdelt": _classes((5, 9, 14)),  # GDELT QuadClass as in the exports: 01-05, 06-09, 10-14, 15-20
        "mirai": _classes((4, 8, 16)),  # MIRAI's evaluation: 01-04, 05-08, 09-16, 17-20
    }
)


def _read_table(text: str, source: str) -> Mapping[str, str]:
    """code -> label from the shipped table; any line that is not a root or base code is an error."""
    table: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#") or line == "code\tlabel":
            continue
        code, tab, label = line.partition("\t")
        well_formed = code in _ROOTS or (len(code) == 3 and code.isascii() and code.isdigit())
        if not tab or not label.strip() or not well_formed or code[:2] not in _ROOTS or code in table:
            raise ValueError(f"{source}:{number}: not a 'code<TAB>label' line of a new CAMEO code: {line!r}")
        table[code] = label.strip()
    missing = sorted(_ROOTS - set(table))
    if missing:
        raise ValueError(f"{source}: roots missing from the CAMEO table: {missing}")
    return MappingProxyType(table)


CAMEO_TABLE_FILE = "data/cameo.tsv"
# Every root and second-level code with its label, in file order (roots first within each block).
CAMEO_CODES: Mapping[str, str] = _read_table(
    resources.files("almanac.mirai").joinpath(CAMEO_TABLE_FILE).read_text(encoding="utf-8"),
    CAMEO_TABLE_FILE,
)
SECOND_LEVEL_CODES: frozenset[str] = frozenset(code for code in CAMEO_CODES if len(code) == 3)
# Short labels of the roots (the table's root lines).
ROOT_NAMES: Mapping[str, str] = MappingProxyType({root: CAMEO_CODES[root] for root in ROOT_CODES})


def is_root_code(code: object) -> bool:
    return isinstance(code, str) and code in _ROOTS


def is_relation_code(code: object) -> bool:
    """A second-level code: exactly three ASCII digits under a valid root ("042" yes; "42", "0421" no)."""
    return (
        isinstance(code, str) and len(code) == 3 and code.isascii() and code.isdigit() and code[:2] in _ROOTS
    )


def root_of(code: str) -> str:
    """The two-digit root of a root or second-level code; anything else is a ValueError."""
    if is_root_code(code):
        return code
    if is_relation_code(code):
        return code[:2]
    raise ValueError(f"not a CAMEO root or second-level code: {code!r}")


def check_mapping(mapping: str) -> Mapping[int, int]:
    if mapping not in QUAD_MAPPINGS:
        raise ValueError(f"unknown quad mapping {mapping!r}; known: {sorted(QUAD_MAPPINGS)}")
    return QUAD_MAPPINGS[mapping]


def quad_class(code: str, mapping: str = "gdelt") -> int:
    """Quad class (1..4) of a root or second-level code under the named mapping."""
    return check_mapping(mapping)[int(root_of(code))]


def binary_of_quad(quad: int) -> str:
    if quad not in QUAD_NAMES:
        raise ValueError(f"quad class must be 1..4, got {quad!r}")
    return COOPERATION if quad <= MATERIAL_COOPERATION else CONFLICT


def binary_class(code: str, mapping: str = "gdelt") -> str:
    """ "cooperation" (quad classes 1-2) or "conflict" (3-4)."""
    return binary_of_quad(quad_class(code, mapping))


def is_cameo_code(code: object) -> bool:
    """A second-level code that exists in the shipped CAMEO table ("042" yes; "049" no)."""
    return isinstance(code, str) and code in SECOND_LEVEL_CODES


def relation_name(code: str, codebook: Mapping[str, str] | None = None) -> str:
    """A readable label: the user's codebook when given, else the shipped table, else the root's name."""
    if codebook and code in codebook:
        return codebook[code]
    if code in CAMEO_CODES:
        return CAMEO_CODES[code]
    root = root_of(code)
    return f"{ROOT_NAMES[root]} ({code})"


def load_codebook(path: str | Path) -> dict[str, str]:
    """Root and second-level descriptions from a CAMEO event-code file (tab-separated code, description).

    For users who prefer an official codebook's wording (GDELT distributes one) over the shipped table's
    labels; ``gdelt_stats.cameo_codebook: ""`` uses the shipped table. Header, class and third-level lines
    are skipped.
    """
    names: dict[str, str] = {}
    with open(path, encoding="utf-8-sig") as handle:
        for line in handle:
            code, _, description = line.rstrip("\r\n").partition("\t")
            code = code.strip()
            if (is_root_code(code) or is_relation_code(code)) and description.strip():
                names[code] = description.strip()
    if not names:
        raise ValueError(f"{path}: no CAMEO root or second-level codes found")
    return names
