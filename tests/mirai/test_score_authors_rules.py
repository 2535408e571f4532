"""The three reading rules on which `almanac score mirai` follows MIRAI's evaluator (yecchen/MIRAI,
agent_evaluation/eval.py, load_predictions): a value that is not a list keeps its key, a key written twice
keeps its last value, an integer code loses the whole answer. Expected values worked out by hand."""

from __future__ import annotations

import json

import pytest

from almanac.mirai.predictions import parse_predictions
from almanac.mirai.score import score_predictions
from tests.mirai.score_cases import LN_1E10, _query

ZERO = {"precision": 0.0, "recall": 0.0, "f1": 0.0}
PERFECT = {"precision": 1.0, "recall": 1.0, "f1": 1.0}


def _one(forecast: object) -> dict[str, object]:
    # truth {04: [042, 043]}
    report = score_predictions([_query("q", ["042", "043"])], {"q": forecast})
    return {**report["per_query"][0], "counts": report["predictions"]}


def test_a_value_that_is_not_a_list_keeps_its_key() -> None:
    # the evaluator loops over the string "036" character by character: no code, but the key 03 stays
    # -> 1st level {03, 04} vs {04}: P 1/2, R 1, F1 2/3; 2nd level {042}: P 1, R 1/2, F1 2/3
    result = _one({"04": ["042"], "03": "036"})
    assert result["status"] == "scored"
    assert result["first_level"] == pytest.approx({"precision": 0.5, "recall": 1.0, "f1": 2 / 3})
    assert result["second_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert result["counts"]["read_as_the_authors_by_reason"] == {"not_a_list": 1}  # type: ignore[index]
    # a dict is looped over by its keys, a tuple like a list: both codes read -> all 1
    assert _one({"04": {"042": 1, "043": 2}})["second_level"] == PERFECT
    assert _one("{'04': ('042', '043')}")["second_level"] == PERFECT


@pytest.mark.parametrize(
    "text",
    [
        '{"04": ["036"], "04": ["042", "043"]}',  # JSON-looking text: eval keeps the last copy
        "{'04': [], '04': ['042', '043']}",
    ],
)
def test_a_key_written_twice_keeps_its_last_value(text: str) -> None:
    result = _one(text)
    assert result["status"] == "scored"
    assert result["first_level"] == PERFECT and result["second_level"] == PERFECT
    assert result["counts"]["read_as_the_authors_by_reason"] == {"repeated_key": 1}  # type: ignore[index]


def test_a_key_written_twice_in_a_predictions_file_keeps_its_last_value() -> None:
    # the same inside a JSONL record (json.loads keeps the last copy): the first copy would be perfect,
    # the last predicts 04 with 036 (another root's code, dropped) -> 1st level 1, 2nd level P 0, R 0
    line = '{"query_id": "q", "prediction": {"04": ["042", "043"], "04": ["036"]}}'
    report = score_predictions([_query("q", ["042", "043"])], parse_predictions(line))
    result = report["per_query"][0]
    assert result["first_level"] == PERFECT and result["second_level"] == ZERO
    assert report["predictions"]["dropped_items_by_reason"] == {"wrong_root": 1}


@pytest.mark.parametrize(
    ("forecast", "reason"),
    [
        ({"04": ["042", 43]}, "code_not_text"),  # 43[:2] raises: every code of the answer is lost
        ({"04": [42, 43]}, "code_not_text"),
        ({"04": ["042", "043"], "03": [36]}, "code_not_text"),  # even beside a perfect list
        ({"04": ["042", None]}, "code_not_text"),
        ({"04": ["042", "043"], "03": 36}, "value_not_iterable"),  # `for item in 36` raises
        ('{"04": ["042", "043"], "03": [36]}', "code_not_text"),  # the same as answer text
        (json.loads('{"04": ["042", "043"], "03": null}'), "value_not_iterable"),
    ],
)
def test_an_integer_code_scores_the_whole_answer_as_wrong(forecast: object, reason: str) -> None:
    result = _one(forecast)
    assert result["status"] == "unreadable"
    assert result["first_level"] == ZERO and result["second_level"] == ZERO
    assert result["binary_kl"] == pytest.approx(LN_1E10, abs=1e-6)  # truth all conflict... vs nothing
    assert result["counts"]["unreadable_by_reason"] == {reason: 1}  # type: ignore[index]


def test_an_integer_key_is_no_root() -> None:
    # {4: [...]} as text: the key 4 is not "04", so it is dropped; nothing is left -> an empty forecast
    result = _one("{4: ['042', '043']}")
    assert result["status"] == "empty"
    assert result["first_level"] == ZERO and result["counts"]["dropped_items_by_reason"] == {  # type: ignore[index]
        "bad_root_key": 1
    }
