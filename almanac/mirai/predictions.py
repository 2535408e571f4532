"""Reading forecasts for MIRAI-style queries, item by item, as MIRAI's own evaluation code reads them.

A forecast is MIRAI's final-answer dictionary: first-level codes as keys, each with the list of its
second-level codes, e.g. ``{"04": ["042", "043"], "03": ["036"]}``. A key with an empty list predicts the
root alone. Files are JSONL (``{"query_id": ..., "prediction": {...}}`` per line), a JSON list of such
records, or one JSON object mapping query_id -> prediction. A prediction may also be the answer's text
(a string holding the dictionary, as a model printed it): it is parsed as JSON, and failing that as a
Python literal (``{'04': ['042']}``), since MIRAI's evaluator read answers with Python's eval; only
literals are evaluated, never code.

Reading rules (each counted under its reason, never silent):

- unreadable answer, scored as empty: text that is neither JSON nor a Python literal (``unparseable``), a
  value that is not a dict (``not_a_dict``), or a query id given twice in the file
  (``duplicate_query_id``: which was meant is unknowable);
- malformed item, dropped while the rest of the answer is scored (as MIRAI's evaluator did):
  a key that is not a CAMEO root, "01".."20" (``bad_root_key``: the key and its list); a value that is not
  a list (``not_a_list``: the key and its value; MIRAI's code kept such a key when the value was a string
  and lost the whole answer when it was a number, so the item is dropped alike in both cases); a key
  written twice in one dictionary (``repeated_key``: every copy, since which one was meant is unknowable);
  a code that is not three ASCII digits, e.g. "42", "0421" or 42 (``bad_code``); a three-digit code under
  another root's key, e.g. "036" under "04" (``wrong_root``);
- invalid code: a well-formed code under its own root that does not exist in CAMEO (e.g. "049"). It is
  dropped and counted apart, never as a false positive, and the answer's valid codes are scored as usual.

The root keys left after dropping are the first-level forecast even when their lists end up empty
(MIRAI's evaluator kept every valid key); repeated codes in one list count once.
"""

from __future__ import annotations

import ast
import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from almanac.mirai.cameo import is_cameo_code, is_root_code

# Reasons a whole answer is unreadable, and reasons one item of a readable answer is dropped.
UNREADABLE_REASONS = ("duplicate_query_id", "not_a_dict", "unparseable")
DROPPED_REASONS = ("bad_code", "bad_root_key", "not_a_list", "repeated_key", "wrong_root")


@dataclass(frozen=True)
class Prediction:
    roots: frozenset[str] = frozenset()  # the valid root keys
    relations: frozenset[str] = frozenset()  # every valid listed second-level code

    @property
    def empty(self) -> bool:
        return not self.roots


EMPTY = Prediction()


@dataclass(frozen=True)
class Reading:
    """What was read from one answer: the forecast, and everything dropped on the way."""

    prediction: Prediction = EMPTY
    unreadable: str | None = None  # one of UNREADABLE_REASONS, or None for a readable answer
    dropped: Mapping[str, int] = field(default_factory=dict)  # DROPPED_REASONS -> count of items
    invalid_codes: tuple[str, ...] = ()  # well-formed codes not in CAMEO, sorted, each once


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


def _is_three_digits(code: object) -> bool:
    return isinstance(code, str) and len(code) == 3 and code.isascii() and code.isdigit()


class Unparseable(Exception):
    """Answer text that is neither JSON nor a Python literal."""


def _parse_text(text: str) -> object:
    """JSON first; else a Python literal, keeping a repeated dict key visible (eval would keep the last)."""
    try:
        return json.loads(text, object_pairs_hook=_object_hook)
    except RecursionError as error:  # nested deeper than the stack allows: no forecast looks so
        raise Unparseable from error
    except json.JSONDecodeError:
        pass
    try:
        tree = ast.parse(text.strip(), mode="eval")
        value = ast.literal_eval(tree)
        if isinstance(tree.body, ast.Dict) and isinstance(value, dict) and len(value) < len(tree.body.keys):
            keys = [ast.literal_eval(key) for key in tree.body.keys if key is not None]
            return Repeated([(key, value.get(key)) for key in keys])
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as error:
        raise Unparseable from error
    return value


def read_answer(value: object) -> Reading:
    """Apply the reading rules above to one raw answer."""
    if isinstance(value, Duplicate):
        return Reading(unreadable="duplicate_query_id")
    if isinstance(value, str):
        try:
            value = _parse_text(value)
        except Unparseable:
            return Reading(unreadable="unparseable")
    if isinstance(value, Repeated):
        counts = Counter(key for key, _ in value.pairs)
        pairs = [(key, codes) for key, codes in value.pairs if counts[key] == 1]
        dropped: Counter[str] = Counter({"repeated_key": sum(n for n in counts.values() if n > 1)})
    elif isinstance(value, dict):
        pairs, dropped = list(value.items()), Counter()
    else:
        return Reading(unreadable="not_a_dict")
    roots: set[str] = set()
    relations: set[str] = set()
    invalid: set[str] = set()
    for key, codes in sorted(pairs, key=lambda pair: str(pair[0])):
        if not is_root_code(key):
            dropped["bad_root_key"] += 1
        elif not isinstance(codes, list):
            dropped["not_a_list"] += 1
        else:
            roots.add(key)
            for code in codes:
                if not _is_three_digits(code):
                    dropped["bad_code"] += 1
                elif code[:2] != key:
                    dropped["wrong_root"] += 1
                elif not is_cameo_code(code):
                    invalid.add(code)
                else:
                    relations.add(code)
    return Reading(
        Prediction(frozenset(roots), frozenset(relations)),
        None,
        {reason: n for reason, n in sorted(dropped.items()) if n},
        tuple(sorted(invalid)),
    )


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
    except (json.JSONDecodeError, RecursionError):  # RecursionError: nesting deeper than the stack
        for line in text.splitlines():
            if not line.strip():
                continue
            try:
                record = json.loads(line, object_pairs_hook=_object_hook)
            except (json.JSONDecodeError, RecursionError):
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
