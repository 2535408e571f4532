"""Read the material the FutureX branch builds from: released splits, GDELT day-pairs, numeric rejects."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from almanac.core import layout
from almanac.core.ids import content_id

SPLITS = ("train", "validation", "test")


def _rows(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = pq.read_table(path).to_pylist()
    return rows


def released_questions(root: Path = Path(".")) -> list[dict[str, Any]]:
    """Every released OpenForesight question, split by split and month by month (file order)."""
    folder = root / layout.foresight_splits_dir()
    return [
        row for split in SPLITS for path in sorted((folder / split).glob("*.parquet")) for row in _rows(path)
    ]


def day_pairs(root: Path = Path(".")) -> list[dict[str, Any]]:
    """The cleaned GDELT quads grouped by (date, subject, object): relations and source URLs of each,
    ``pair_id`` as MIRAI's query id (content hash of date, subject, object), in date-pair order."""
    grouped: dict[tuple[Any, str, str], dict[str, Any]] = {}
    for quad in _rows(root / layout.gdelt_quads()):
        key = (quad["date"], str(quad["subject"]), str(quad["object"]))
        pair = grouped.setdefault(
            key,
            {
                "pair_id": content_id(key[0].isoformat(), key[1], key[2]),
                "date": key[0],
                "subject": key[1],
                "object": key[2],
                "relations": set(),
                "urls": set(),
            },
        )
        pair["relations"].add(str(quad["relation"]))
        pair["urls"].update(str(url) for url in quad.get("urls") or ())
    return [
        {**pair, "relations": sorted(pair["relations"]), "urls": sorted(pair["urls"])}
        for _key, pair in sorted(grouped.items())
    ]


def numeric_rejects(
    months: Sequence[str], reasons: Sequence[str], root: Path = Path(".")
) -> list[tuple[dict[str, Any], str]]:
    """(question row, reason) for each answer_type reject with one of ``reasons``: the rejects file names
    the question, the stage's input (leakage output) holds its fields."""
    found: list[tuple[dict[str, Any], str]] = []
    for month in months:
        rejects = root / layout.foresight_rejects("answer_type", month)
        if not rejects.is_file():
            continue
        wanted = {row["id"]: row["reason"] for row in _rows(rejects) if row["reason"] in reasons}
        if not wanted:
            continue
        for row in _rows(root / layout.foresight_path("leakage", month)):
            if row["question_id"] in wanted:
                found.append(({**row, "month": month}, wanted[row["question_id"]]))
    return found
