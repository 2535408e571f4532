"""Read the material the FutureX branch builds from: released splits, GDELT day-pairs, numeric rejects."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from almanac.core import layout
from almanac.core.ids import content_id
from almanac.core.io import read_parquet
from almanac.foresight.answer_types import declared_answer_class

SPLITS = ("train", "validation", "test")


def _rows(path: Path) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = read_parquet(path).to_pylist()
    return rows


def released_questions(root: Path = Path(".")) -> list[dict[str, Any]]:
    """Every released OpenForesight question, split by split and month by month (file order)."""
    folder = root / layout.foresight_splits_dir()
    return [
        row for split in SPLITS for path in sorted((folder / split).glob("*.parquet")) for row in _rows(path)
    ]


def openforecast_training(root: Path = Path(".")) -> list[dict[str, Any]]:
    """The released OpenForecast train and validation samples (every task), for the cross-style test."""
    folder = root / layout.event_splits_dir()
    return [
        row
        for split in ("train", "validation")
        for path in sorted((folder / split).glob("*.parquet"))
        for row in _rows(path)
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


# Where OpenForesight drops a numeric question -> the stage whose output holds that question's fields:
# the validator (``invalid_non_numeric``; as generated, before any leakage edit) and the answer-type
# filter (``answer_class_numeric``; after the leakage edit).
NUMERIC_REJECT_STAGES: Final = {"validate": "qgen", "answer_type": "leakage"}


def numeric_rejects(
    months: Sequence[str], reasons: Sequence[str], root: Path = Path(".")
) -> list[tuple[dict[str, Any], str]]:
    """(question row, reason) for each validate or answer_type reject with one of ``reasons``: the rejects
    file names the question, the stage's input holds its fields."""
    found: list[tuple[dict[str, Any], str]] = []
    for month in months:
        for stage, source in NUMERIC_REJECT_STAGES.items():
            rejects = root / layout.foresight_rejects(stage, month)
            if not rejects.is_file():
                continue
            wanted = {row["id"]: row["reason"] for row in _rows(rejects) if row["reason"] in reasons}
            if not wanted:
                continue
            for row in _rows(root / layout.foresight_path(source, month)):
                if row["question_id"] in wanted:
                    found.append(({**row, "month": month}, wanted[row["question_id"]]))
    return found


def distractor_pool(
    months: Sequence[str], released_ids: set[str], root: Path = Path(".")
) -> list[dict[str, Any]]:
    """Level-1 distractor candidates: the answers of questions ``foresight_qgen`` generated that no split
    released, with the class their declared answer type implies (vague types are left out) and the day
    their article was public."""
    pool: list[dict[str, Any]] = []
    for month in months:
        path = root / layout.foresight_path("qgen", month)
        if not path.is_file():
            continue
        for row in _rows(path):
            answer, published = str(row.get("answer") or "").strip(), row.get("article_publish_date")
            answer_class = declared_answer_class(answer, str(row.get("answer_type") or ""))
            if row["question_id"] in released_ids or not answer or answer_class is None or published is None:
                continue
            day = published.date() if hasattr(published, "date") else published
            pool.append(
                {
                    "question_id": row["question_id"],
                    "answer": answer,
                    "answer_class": answer_class,
                    "public_date": day,
                }
            )
    return pool
