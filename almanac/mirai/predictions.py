"""Reading forecasts for MIRAI-style queries, item by item, as MIRAI's own evaluation code reads them.

A forecast is MIRAI's final-answer dictionary: first-level codes as keys, each with the list of its
second-level codes, e.g. ``{"04": ["042", "043"], "03": ["036"]}``. A key with an empty list predicts the
root alone. Files are JSONL (``{"query_id": ..., "prediction": {...}}`` per line), a JSON list of such
records, or one JSON object mapping query_id -> prediction. A prediction may also be the answer's text
(a string holding the dictionary, as a model printed it): MIRAI's evaluator (yecchen/MIRAI,
``agent_evaluation/eval.py``, ``load_predictions``) reads that text with Python's ``eval``, so it is read
here as a Python literal (``ast.literal_eval``: the same literals, never code). JSON's ``true``, ``false``
and ``null`` are no Python literals: such a text is unreadable, as ``eval`` fails on it too.

The authors' reading, rule by rule (each counted, never silent):

- unreadable answer, scored as empty (the evaluator's ``except`` returns no codes at all): text that is
  no Python literal (``unparseable``), a value that is not a dict (``not_a_dict``), a query id given twice
  in the file (``duplicate_query_id``: our file format, which was meant is unknowable), and, under a valid
  root key, a value that cannot be iterated (``value_not_iterable``: a number, null, true/false) or an
  item that cannot be sliced like a string (``code_not_text``: the integer code ``42``, null, a dict...):
  ``for item in value`` or ``item[:2]`` raises, and the whole answer is lost. So an integer code scores
  the query as wrong, not just the one item.
- a value that is not a list (a string, a dict, a set or tuple) keeps its key: the evaluator iterates it
  as it is (a string by its characters, a dict by its keys), so ``{"03": "036"}`` predicts the root 03 and
  no second-level code. Counted in ``notes`` as ``not_a_list``.
- a key written twice: the last value is kept, as both ``eval`` of a dict display and ``json.loads`` do.
  Counted in ``notes`` as ``repeated_key`` (each extra copy once).
- malformed item, dropped while the rest of the answer is scored: a key that is not a CAMEO root,
  "01".."20" (``bad_root_key``: the key and its value, never looked at); a text item that is not three
  ASCII digits, e.g. "42" or "0421", or a list inside the list (``bad_code``); a three-digit code under
  another root's key, e.g. "036" under "04" (``wrong_root``);
- invalid code: a well-formed code under its own root that does not exist in CAMEO (e.g. "049"). It is
  dropped and counted apart, never as a false positive, and the answer's valid codes are scored as usual.

The root keys left are the first-level forecast even when their lists end up empty (MIRAI's evaluator kept
every valid key); repeated codes in one list count once.
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

# Reasons a whole answer is unreadable, reasons one item of a readable answer is dropped, and what is
# read as the authors read it but noted (nothing dropped).
UNREADABLE_REASONS = (
    "code_not_text",
    "duplicate_query_id",
    "not_a_dict",
    "unparseable",
    "value_not_iterable",
)
DROPPED_REASONS = ("bad_code", "bad_root_key", "wrong_root")
NOTE_REASONS = ("not_a_list", "repeated_key")
# What ``item[:2]`` works on (the evaluator slices every item of a valid key's value).
_SLICEABLE = (str, list, tuple, bytes, bytearray)


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
    """What was read from one answer: the forecast, and everything dropped or noted on the way."""

    prediction: Prediction = EMPTY
    unreadable: str | None = None  # one of UNREADABLE_REASONS, or None for a readable answer
    dropped: Mapping[str, int] = field(default_factory=dict)  # DROPPED_REASONS -> count of items
    invalid_codes: tuple[str, ...] = ()  # well-formed codes not in CAMEO, sorted, each once
    notes: Mapping[str, int] = field(default_factory=dict)  # NOTE_REASONS -> count


class Repeated:
    """A JSON object that names one key twice (kept visible so that it can be counted)."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        self.pairs = pairs


class Duplicate:
    """Stands for the forecasts of a query id that occurs more than once in a file."""


DUPLICATE = Duplicate()


def _object_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any] | Repeated:
    keys = [key for key, _ in pairs]
    return Repeated(pairs) if len(set(keys)) != len(keys) else dict(pairs)


def _plain(value: object) -> object:
    """``value`` with every Repeated object made a dict that keeps each key's last value (json.loads)."""
    if isinstance(value, Repeated):
        return {key: _plain(item) for key, item in value.pairs}
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def _is_three_digits(code: object) -> bool:
    return isinstance(code, str) and len(code) == 3 and code.isascii() and code.isdigit()


class Unparseable(Exception):
    """Answer text that is no Python literal."""


def _parse_text(text: str) -> tuple[object, int]:
    """The literal (as eval would give it: a repeated key keeps its last value) and its repeated keys."""
    try:
        tree = ast.parse(text.strip(), mode="eval")
        value = ast.literal_eval(tree)
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError) as error:
        raise Unparseable from error
    repeats = 0
    if isinstance(tree.body, ast.Dict) and isinstance(value, dict):
        repeats = len(tree.body.keys) - len(value)
    return value, repeats


class _Lost(Exception):
    """The evaluator would raise on this answer and keep no code of it."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _items(value: object) -> list[object]:
    if isinstance(value, str | bytes | bytearray | list | tuple | set | frozenset | dict):
        return list(value)
    raise _Lost("value_not_iterable")


def read_answer(value: object) -> Reading:
    """Apply the reading rules above to one raw answer."""
    if isinstance(value, Duplicate):
        return Reading(unreadable="duplicate_query_id")
    notes: Counter[str] = Counter()
    if isinstance(value, str):
        try:
            value, notes["repeated_key"] = _parse_text(value)
        except Unparseable:
            return Reading(unreadable="unparseable")
    elif isinstance(value, Repeated):
        notes["repeated_key"] = len(value.pairs) - len({key for key, _ in value.pairs})
    value = _plain(value)
    if not isinstance(value, dict):
        return Reading(unreadable="not_a_dict")
    dropped: Counter[str] = Counter()
    roots: set[str] = set()
    relations: set[str] = set()
    invalid: set[str] = set()
    try:
        for key, codes in sorted(value.items(), key=lambda pair: str(pair[0])):
            if not is_root_code(key):
                dropped["bad_root_key"] += 1
                continue
            roots.add(key)
            notes["not_a_list"] += not isinstance(codes, list)
            if isinstance(codes, str):  # its characters are one-letter texts: never a code, never a raise
                continue
            for code in _items(codes):
                if not isinstance(code, _SLICEABLE):
                    raise _Lost("code_not_text")
                if not _is_three_digits(code):
                    dropped["bad_code"] += 1
                elif code[:2] != key:
                    dropped["wrong_root"] += 1
                elif not is_cameo_code(code):
                    invalid.add(str(code))
                else:
                    relations.add(str(code))
    except _Lost as lost:
        return Reading(unreadable=lost.reason)
    return Reading(
        Prediction(frozenset(roots), frozenset(relations)),
        None,
        {reason: n for reason, n in sorted(dropped.items()) if n},
        tuple(sorted(invalid)),
        {reason: n for reason, n in sorted(notes.items()) if n},
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
