"""Reading forecasts for MIRAI-style queries and deciding which are well formed.

A forecast is MIRAI's final-answer dictionary: first-level codes as keys, each with the list of its
second-level codes, e.g. ``{"04": ["042", "043"], "03": ["036"]}``. A key with an empty list predicts the
root alone. Files are JSONL (``{"query_id": ..., "prediction": {...}}`` per line), a JSON list of such
records, or one JSON object mapping query_id -> prediction.

A forecast that is not such a dictionary, names a code that is not a CAMEO root / second-level code,
puts a code under another root's key, or is given twice for one query is malformed and scored as an empty
forecast. (MIRAI's own evaluator silently dropped the offending codes and kept the rest; scoring the whole
answer as empty keeps a sloppy output format from earning partial credit.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from almanac.mirai.cameo import is_relation_code, is_root_code


@dataclass(frozen=True)
class Prediction:
    roots: frozenset[str] = frozenset()  # the dictionary's keys
    relations: frozenset[str] = frozenset()  # every listed second-level code

    @property
    def empty(self) -> bool:
        return not self.roots


EMPTY = Prediction()


class Repeated:
    """A JSON object that names one key twice: which value was meant is unknowable."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs


class Duplicate:
    """Stands for the forecasts of a query id that occurs more than once in a file."""


DUPLICATE = Duplicate()


def _object_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any] | Repeated:
    keys = [key for key, _ in pairs]
    return Repeated(pairs) if len(set(keys)) != len(keys) else dict(pairs)


def check_prediction(value: object) -> tuple[Prediction, str | None]:
    """The forecast, or (EMPTY, reason) when it is malformed."""
    if isinstance(value, Duplicate):
        return EMPTY, "duplicate_query_id"
    if isinstance(value, Repeated):
        return EMPTY, "repeated_key"
    if not isinstance(value, dict):
        return EMPTY, "not_a_dict"
    relations: set[str] = set()
    for key in sorted(value, key=str):
        codes = value[key]
        if not is_root_code(key):
            return EMPTY, "bad_root_code"
        if not isinstance(codes, list):
            return EMPTY, "not_a_list"
        for code in codes:
            if not is_relation_code(code):
                return EMPTY, "bad_code"
            if code[:2] != key:
                return EMPTY, "wrong_root"
            relations.add(code)
    return Prediction(frozenset(value), frozenset(relations)), None


@dataclass
class PredictionFile:
    by_query: dict[str, object] = field(default_factory=dict)  # raw forecasts; DUPLICATE for repeated ids
    unreadable_records: int = 0  # lines / records with no usable query_id (not JSON, not an object, ...)


def _add(loaded: PredictionFile, query_id: object, prediction: object) -> None:
    if not isinstance(query_id, str):
        loaded.unreadable_records += 1
    elif query_id in loaded.by_query:
        loaded.by_query[query_id] = DUPLICATE
    else:
        loaded.by_query[query_id] = prediction


def _add_record(loaded: PredictionFile, record: object) -> None:
    if isinstance(record, dict) and "prediction" in record:
        _add(loaded, record.get("query_id"), record["prediction"])
    else:
        loaded.unreadable_records += 1


def parse_predictions(text: str) -> PredictionFile:
    loaded = PredictionFile()
    if not text.strip():
        return loaded
    try:
        whole = json.loads(text, object_pairs_hook=_object_hook)
    except json.JSONDecodeError:
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line, object_pairs_hook=_object_hook)
            except json.JSONDecodeError:
                loaded.unreadable_records += 1
                continue
            _add_record(loaded, record)
        return loaded
    if isinstance(whole, list):
        for record in whole:
            _add_record(loaded, record)
    elif isinstance(whole, dict) and "query_id" in whole:  # a JSONL file of one line
        _add_record(loaded, whole)
    elif isinstance(whole, dict | Repeated):
        pairs = whole.pairs if isinstance(whole, Repeated) else list(whole.items())
        for query_id, prediction in pairs:
            _add(loaded, query_id, prediction)
    else:
        raise ValueError("predictions must be JSONL records, a JSON list of records or a JSON object")
    return loaded


def load_predictions(path: str | Path) -> PredictionFile:
    return parse_predictions(Path(path).read_text(encoding="utf-8"))


def as_raw_mapping(predictions: Mapping[str, object] | PredictionFile) -> PredictionFile:
    if isinstance(predictions, PredictionFile):
        return predictions
    return PredictionFile(by_query=dict(predictions))
