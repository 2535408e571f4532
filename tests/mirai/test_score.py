"""The scorer on cases worked out by hand (natural logs; epsilon = 1e-10 unless said otherwise).

Useful values: ln(1e10) = 23.0258509, ln(5e9) = ln 5 + 9 ln 10 = 22.3327037, ln 0.5 = -0.6931472,
ln 1.125 = 0.1177830, ln 1.5 = 0.4054651.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from almanac.core.io import write_parquet
from almanac.core.params import parse_section
from almanac.core.schemas import table_from_rows
from almanac.mirai.predictions import Prediction, load_predictions, parse_predictions, read_answer
from almanac.mirai.relation_split import QUERY_SCHEMA, Group, query_row
from almanac.mirai.score import ScorerConfig, main, report_markdown, score_predictions
from tests.mirai.quads import REGIONS

LN_1E10 = 23.0258509
HALF_MISSING = 0.5 * -0.6931472 + 0.5 * 22.3327037  # 0.5 ln(0.5 / 1) + 0.5 ln(0.5 / 1e-10) = 10.8197783


def _query(query_id: str, answers: list[str]) -> dict[str, Any]:
    return {"query_id": query_id, "answers": answers, "answer_roots": sorted({a[:2] for a in answers})}


def _one(answers: list[str], prediction: object, mapping: str = "mirai") -> dict[str, Any]:
    report = score_predictions([_query("q", answers)], {"q": prediction}, mapping)
    result: dict[str, Any] = report["per_query"][0]
    return result


def test_brief_example_second_and_first_level() -> None:
    # truth {04: [042, 043]}, forecast {04: [042], 03: [036]}
    # second level: 1 hit of 2 predicted, of 2 true -> P = R = F1 = 1/2
    # first level: predicted {03, 04}, true {04} -> P = 1/2, R = 1, F1 = 2 * 1/2 * 1 / (3/2) = 2/3
    # classes: 03 and 04 are both verbal cooperation under both mappings -> P = Q -> KL = 0
    for mapping in ("gdelt", "mirai"):
        result = _one(["042", "043"], {"04": ["042"], "03": ["036"]}, mapping)
        assert result["second_level"] == pytest.approx({"precision": 0.5, "recall": 0.5, "f1": 0.5})
        assert result["first_level"] == pytest.approx({"precision": 0.5, "recall": 1.0, "f1": 2 / 3})
        assert result["binary_kl"] == pytest.approx(0.0, abs=1e-12)
        assert result["quad_kl"] == pytest.approx(0.0, abs=1e-12)
        assert result["status"] == "scored"


def test_root_05_splits_the_mappings() -> None:
    # truth {04: [042], 05: [051]}, forecast {04: [042]}
    # second level P = 1, R = 1/2, F1 = 2/3; first level the same.
    # gdelt: 04 and 05 are both verbal cooperation -> P = Q = (1, 0, 0, 0) -> quad KL 0
    # mirai: 05 is material cooperation -> P = (1/2, 1/2, 0, 0), Q = (1, 0, 0, 0)
    #   KL = 0.5 ln(0.5 / 1) + 0.5 ln(0.5 / 1e-10) = 10.8197783 (epsilon elsewhere changes it by < 1e-8)
    # binary: all cooperation under both -> 0
    gdelt = _one(["042", "051"], {"04": ["042"]}, "gdelt")
    mirai = _one(["042", "051"], {"04": ["042"]}, "mirai")
    for result in (gdelt, mirai):
        assert result["second_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
        assert result["first_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
        assert result["binary_kl"] == pytest.approx(0.0, abs=1e-12)
    assert gdelt["quad_kl"] == pytest.approx(0.0, abs=1e-12)
    assert mirai["quad_kl"] == pytest.approx(HALF_MISSING, abs=1e-6)


def test_roots_14_and_16_split_the_mappings_the_other_way() -> None:
    # truth {14: [141], 16: [160]}, forecast {16: [163]}
    # second level: no hit -> P = R = F1 = 0; first level: predicted {16} of true {14, 16} -> 1, 1/2, 2/3
    # gdelt: 14 is verbal conflict (10-14), 16 material conflict (15-20)
    #   -> P = (0, 0, 1/2, 1/2), Q = (0, 0, 0, 1)
    #   KL = e ln(e / e) * 2 + (1/2 + e) ln((1/2 + e) / e) + (1/2 + e) ln((1/2 + e) / (1 + e))
    #      = 0.5 ln(5e9) + 0.5 ln 0.5 + O(1e-9) = 11.1663519 - 0.3465736 = 10.8197783
    # mirai: 14 and 16 are both verbal conflict (09-16) -> P = Q = (0, 0, 1, 0) -> quad KL 0
    # binary: 14 and 16 are conflict under both -> P = Q = (0, 1) -> 0
    gdelt = _one(["141", "160"], {"16": ["163"]}, "gdelt")
    mirai = _one(["141", "160"], {"16": ["163"]}, "mirai")
    for result in (gdelt, mirai):
        assert result["second_level"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
        assert result["first_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
        assert result["binary_kl"] == pytest.approx(0.0, abs=1e-12)
    assert gdelt["quad_kl"] == pytest.approx(HALF_MISSING, abs=1e-6)
    assert mirai["quad_kl"] == pytest.approx(0.0, abs=1e-12)


def test_roots_14_and_19_are_scored_alike_under_both_mappings() -> None:
    # truth {14: [141], 19: [190]}, forecast {19: [193]}
    # 14 is verbal conflict under both (gdelt 10-14, mirai 09-16) and 19 material conflict under both,
    # so P = (0, 0, 1/2, 1/2), Q = (0, 0, 0, 1) under either -> quad KL 10.8197783 (as above); binary 0
    for mapping in ("gdelt", "mirai"):
        result = _one(["141", "190"], {"19": ["193"]}, mapping)
        assert result["quad_kl"] == pytest.approx(HALF_MISSING, abs=1e-6)
        assert result["binary_kl"] == pytest.approx(0.0, abs=1e-12)


def test_root_09_splits_the_binary_class() -> None:
    # truth {08: [081], 09: [091]}, forecast {08: [081]}
    # second level: predicted {081} of true {081, 091} -> P = 1, R = 1/2, F1 = 2/3; first level the same
    # gdelt: 08 and 09 are both material cooperation (06-09)
    #   -> binary P = Q = (1, 0) and quad P = Q = (0, 1, 0, 0) -> both KL 0
    # mirai: 08 is material cooperation (05-08), 09 verbal conflict (09-16)
    #   binary P = (1/2, 1/2), Q = (1, 0):
    #     (1/2 + e) ln((1/2 + e) / (1 + e)) + (1/2 + e) ln((1/2 + e) / e) = 0.5 ln 0.5 + 0.5 ln(5e9) = 10.8197783
    #   quad P = (0, 1/2, 1/2, 0), Q = (0, 1, 0, 0): the same two non-zero terms -> 10.8197783
    gdelt = _one(["081", "091"], {"08": ["081"]}, "gdelt")
    mirai = _one(["081", "091"], {"08": ["081"]}, "mirai")
    for result in (gdelt, mirai):
        assert result["second_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
        assert result["first_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert gdelt["binary_kl"] == pytest.approx(0.0, abs=1e-12)
    assert gdelt["quad_kl"] == pytest.approx(0.0, abs=1e-12)
    assert mirai["binary_kl"] == pytest.approx(HALF_MISSING, abs=1e-6)
    assert mirai["quad_kl"] == pytest.approx(HALF_MISSING, abs=1e-6)


def test_partial_class_overlap_and_a_root_without_codes() -> None:
    # truth {04: [042], 19: [190]}, forecast {04: [042], 05: [], 19: [190]} (05 predicted as a root only)
    # second level {042, 190} = truth -> 1, 1, 1; first level predicted {04, 05, 19} -> P = 2/3, R = 1,
    # F1 = 2 * (2/3) / (5/3) = 0.8
    # binary: P = (1/2, 1/2), Q = (2/3, 1/3): 0.5 ln(0.75) + 0.5 ln(1.5) = 0.5 ln 1.125 = 0.0588915
    # gdelt quad: P = (1/2, 0, 0, 1/2), Q = (2/3, 0, 0, 1/3) -> the same 0.0588915
    # mirai quad: Q = (1/3, 1/3, 0, 1/3): 0.5 ln(1.5) + 0.5 ln(1.5) = ln 1.5 = 0.4054651
    forecast = {"04": ["042"], "05": [], "19": ["190"]}
    gdelt = _one(["042", "190"], forecast, "gdelt")
    mirai = _one(["042", "190"], forecast, "mirai")
    assert gdelt["second_level"] == pytest.approx({"precision": 1.0, "recall": 1.0, "f1": 1.0})
    assert gdelt["first_level"] == pytest.approx({"precision": 2 / 3, "recall": 1.0, "f1": 0.8})
    assert gdelt["binary_kl"] == pytest.approx(0.5 * 0.1177830, abs=1e-6)
    assert gdelt["quad_kl"] == pytest.approx(0.5 * 0.1177830, abs=1e-6)
    assert mirai["quad_kl"] == pytest.approx(0.4054651, abs=1e-6)


def test_empty_forecast() -> None:
    # {} predicts nothing: P = R = F1 = 0. Truth {04}: binary P = (1, 0), Q = (0, 0) ->
    # (1 + e) ln((1 + e) / e) + e ln(e / e) = ln(1e10) + O(1e-9) = 23.0258509; the quad KL is the same.
    result = _one(["042"], {})
    assert result["status"] == "empty"
    assert result["first_level"] == result["second_level"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert result["binary_kl"] == pytest.approx(LN_1E10, abs=1e-6)
    assert result["quad_kl"] == pytest.approx(LN_1E10, abs=1e-6)


def test_opposite_binary_class_and_a_larger_epsilon() -> None:
    # truth {19}, forecast {04}: binary P = (0, 1), Q = (1, 0)
    # with e = 1e-3: e ln(e / (1 + e)) + (1 + e) ln((1 + e) / e)
    #   = 0.001 * (-6.9087548) + 1.001 * 6.9087548 = 6.9087548 (ln 1001 = 6.9087548)
    report = score_predictions([_query("q", ["190"])], {"q": {"04": ["042"]}}, "gdelt", kl_epsilon=1e-3)
    assert report["per_query"][0]["binary_kl"] == pytest.approx(6.9087548, abs=1e-6)
    assert report["kl_epsilon"] == 1e-3


def test_worked_example_over_several_queries_macro_averages() -> None:
    # Four queries, scored with the defaults (mirai mapping, epsilon 1e-10), then averaged per query.
    # q1 truth {04: [042, 043]}, forecast {04: [042], 03: [036]}
    #   2nd: 1 hit, 2 predicted, 2 true -> P 1/2, R 1/2, F1 1/2; 1st: {03, 04} vs {04} -> 1/2, 1, 2/3
    #   03 and 04 are verbal cooperation (01-04): binary P = Q = (1, 0), quad P = Q -> both KL 0
    # q2 truth {05: [051], 19: [190]}, forecast {05: [051, 057], 09: [090]}
    #   2nd: {051, 057, 090} vs {051, 190}: 1 hit -> P 1/3, R 1/2, F1 2 (1/6) / (5/6) = 2/5
    #   1st: {05, 09} vs {05, 19}: 1 hit -> P 1/2, R 1/2, F1 1/2
    #   binary (01-08 cooperation): truth 05 coop, 19 conflict; forecast 05 coop, 09 conflict
    #     -> P = Q = (1/2, 1/2) -> 0
    #   quad: truth 05 -> 2, 19 -> 4: P = (0, 1/2, 0, 1/2); forecast 05 -> 2, 09 -> 3: Q = (0, 1/2, 1/2, 0)
    #     KL = (1/2 + e) ln((1/2 + e) / e) + e ln(e / (1/2 + e)) = 0.5 ln(5e9) + O(1e-9) = 11.1663519
    # q3 truth {17: [173]}, forecast {}: all 0; binary P = (0, 1), Q = (0, 0) -> ln(1e10) = 23.0258509;
    #   quad the same
    # q4 truth {01: [010]}, no forecast at all: scored as empty -> 0s and both KL 23.0258509
    # means over the 4 queries:
    #   1st P (1/2 + 1/2) / 4 = 1/4, R (1 + 1/2) / 4 = 3/8, F1 (2/3 + 1/2) / 4 = 7/24
    #   2nd P (1/2 + 1/3) / 4 = 5/24, R (1/2 + 1/2) / 4 = 1/4, F1 (1/2 + 2/5) / 4 = 9/40
    #   binary KL (0 + 0 + 2 x 23.0258509) / 4 = 11.5129255
    #   quad KL (0 + 11.1663519 + 2 x 23.0258509) / 4 = 57.2180537 / 4 = 14.3045134
    queries = [
        _query("q1", ["042", "043"]),
        _query("q2", ["051", "190"]),
        _query("q3", ["173"]),
        _query("q4", ["010"]),
    ]
    forecasts = {"q1": {"04": ["042"], "03": ["036"]}, "q2": {"05": ["051", "057"], "09": ["090"]}, "q3": {}}
    report = score_predictions(queries, forecasts)
    assert report["quad_mapping"] == "mirai" and report["kl_epsilon"] == 1e-10
    mean = report["mean"]
    assert mean["first_level"] == pytest.approx({"precision": 1 / 4, "recall": 3 / 8, "f1": 7 / 24})
    assert mean["second_level"] == pytest.approx({"precision": 5 / 24, "recall": 1 / 4, "f1": 9 / 40})
    assert mean["binary_kl"] == pytest.approx(2 * LN_1E10 / 4, abs=1e-6)
    assert mean["quad_kl"] == pytest.approx(14.3045134, abs=1e-6)
    per_query = {q["query_id"]: q for q in report["per_query"]}
    assert per_query["q2"]["second_level"] == pytest.approx({"precision": 1 / 3, "recall": 0.5, "f1": 0.4})
    assert per_query["q2"]["quad_kl"] == pytest.approx(11.1663519, abs=1e-6)
    assert [per_query[q]["status"] for q in ("q1", "q2", "q3", "q4")] == [
        "scored",
        "scored",
        "empty",
        "missing",
    ]
    # The gdelt mapping, by option, only moves the KLs: root 09 is cooperation there (01-09), so q2's
    # binary P = (1/2, 1/2), Q = (1, 0) -> 0.5 ln 0.5 + 0.5 ln(5e9) = 10.8197783, and
    # binary mean (10.8197783 + 2 x 23.0258509) / 4 = 14.2178700; the set scores do not change.
    gdelt = score_predictions(queries, forecasts, quad_mapping="gdelt")
    assert gdelt["quad_mapping"] == "gdelt"
    assert gdelt["mean"]["binary_kl"] == pytest.approx(14.2178700, abs=1e-6)
    assert gdelt["mean"]["second_level"] == mean["second_level"]


def test_default_quad_mapping_is_mirai() -> None:
    # root 05 is verbal cooperation under gdelt (01-05) and material cooperation under mirai (05-08):
    # truth {05}, forecast {04} -> mirai quad KL = ln(1e10) + O(1e-9) (one-sided), gdelt quad KL = 0
    assert ScorerConfig().quad_mapping == "mirai"
    assert parse_section(ScorerConfig, {}, "scorer").quad_mapping == "mirai"
    report = score_predictions([_query("q", ["051"])], {"q": {"04": ["042"]}})
    assert report["quad_mapping"] == "mirai"
    assert report["per_query"][0]["quad_kl"] == pytest.approx(LN_1E10, abs=1e-6)
    assert _one(["051"], {"04": ["042"]}, "gdelt")["quad_kl"] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="unknown quad mapping"):
        ScorerConfig(quad_mapping="cameo")


# truth {04: [042, 043]}; each forecast is {"04": ["042"]} plus one malformed item, which is dropped while
# the rest is scored as if it were alone: 1st level {04} vs {04} -> 1, 1, 1; 2nd level {042} of
# {042, 043} -> P 1, R 1/2, F1 2/3; quad and binary KL 0 (04 on both sides).
@pytest.mark.parametrize(
    ("forecast", "reason", "count"),
    [
        ({"04": ["042"], "4": ["043"]}, "bad_root_key", 1),  # not two digits: 043 goes with it
        ({"04": ["042"], "21": ["043"]}, "bad_root_key", 1),  # no root 21
        ({"04": ["042"], "043": []}, "bad_root_key", 1),  # a second-level code as a key
        ({"04": ["042", "036"]}, "wrong_root", 1),  # 036 is under 03: neither 036 nor 03 is predicted
        ({"04": ["042", "0431"]}, "bad_code", 1),  # a third-level (4-digit) code
        ({"04": ["042", "43", 43]}, "bad_code", 2),  # too short, and not a string
        ({"04": ["042"], "03": "036"}, "not_a_list", 1),  # the key 03 goes too: first-level P stays 1
        ({"04": ["042"], "03": 36}, "not_a_list", 1),
        ('{"04": ["042"], "03": ["036"], "03": []}', "repeated_key", 2),  # both copies of 03
    ],
)
def test_malformed_item_is_dropped_and_the_rest_scored(forecast: object, reason: str, count: int) -> None:
    report = score_predictions([_query("q", ["042", "043"])], {"q": forecast})
    result = report["per_query"][0]
    assert result["status"] == "scored"
    assert result["first_level"] == pytest.approx({"precision": 1.0, "recall": 1.0, "f1": 1.0})
    assert result["second_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert result["quad_kl"] == pytest.approx(0.0, abs=1e-12)
    assert result["binary_kl"] == pytest.approx(0.0, abs=1e-12)
    assert result["dropped_items"] == count
    assert report["predictions"]["dropped_items_by_reason"] == {reason: count}
    assert report["predictions"]["invalid_codes"] == 0 and report["predictions"]["unreadable"] == 0


def test_every_kind_dropped_in_one_answer_is_counted_by_reason() -> None:
    # one answer with one item of each kind, plus the good 04: [042] -> the same scores as above
    forecast = {"04": ["042", "036", "0431", "049"], "4": [], "03": "036", "10": ["109"]}
    report = score_predictions([_query("q", ["042", "043"])], {"q": forecast})
    result = report["per_query"][0]
    # 10 is a valid root whose only code (109) is not in CAMEO: the root stays predicted (MIRAI kept
    # every valid key) -> 1st level {04, 10} vs {04}: P 1/2, R 1, F1 2/3; 2nd level {042}: 1, 1/2, 2/3
    assert result["first_level"] == pytest.approx({"precision": 0.5, "recall": 1.0, "f1": 2 / 3})
    assert result["second_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert result["invalid_codes"] == ["049", "109"]
    assert report["predictions"]["dropped_items_by_reason"] == {
        "bad_code": 1,
        "bad_root_key": 1,
        "not_a_list": 1,
        "wrong_root": 1,
    }
    assert report["predictions"]["invalid_codes"] == 2


def test_invalid_code_is_counted_never_a_false_positive() -> None:
    # truth {04: [042, 043]}, forecast {04: [042, 049]}: 049 is three digits under its own root but not
    # a CAMEO code. Dropped and counted invalid: 2nd level {042} -> P 1 (not 1/2), R 1/2, F1 2/3.
    report = score_predictions([_query("q", ["042", "043"])], {"q": {"04": ["042", "049"]}})
    result = report["per_query"][0]
    assert result["status"] == "scored" and result["invalid_codes"] == ["049"]
    assert result["second_level"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert result["first_level"] == pytest.approx({"precision": 1.0, "recall": 1.0, "f1": 1.0})
    counts = report["predictions"]
    assert (counts["invalid_codes"], counts["dropped_items_by_reason"], counts["scored"]) == (1, {}, 1)
    assert "| 1 | 0 | 0 | 0 | 0 | 1 |" in report_markdown(report)  # scored ... dropped items, invalid
    # Only invalid codes: the root key is still a first-level forecast; the second level predicts nothing
    # -> P 0 (empty predicted set), R 0.
    alone = score_predictions([_query("q", ["042"])], {"q": {"04": ["049"]}})["per_query"][0]
    assert alone["first_level"] == pytest.approx({"precision": 1.0, "recall": 1.0, "f1": 1.0})
    assert alone["second_level"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}


@pytest.mark.parametrize(
    ("forecast", "reason"),
    [
        (["042"], "not_a_dict"),
        ('["042"]', "not_a_dict"),
        (42, "not_a_dict"),
        (None, "not_a_dict"),
        ("Final Answer: 04 042", "unparseable"),
        ("{'04': ['042'", "unparseable"),
        ("__import__('os').getcwd()", "unparseable"),  # only literals are read, never code
        ("[" * 5000 + "]" * 5000, "unparseable"),  # deeper than the parser's stack: counted, no crash
    ],
)
def test_unreadable_answers_score_as_empty(forecast: object, reason: str) -> None:
    # truth {04: [042]} scored as an empty forecast: 0s and binary KL ln(1e10)
    report = score_predictions([_query("q", ["042"])], {"q": forecast})
    result = report["per_query"][0]
    assert result["status"] == "unreadable"
    assert result["second_level"] == result["first_level"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0}
    assert result["binary_kl"] == pytest.approx(LN_1E10, abs=1e-6)
    assert report["predictions"]["unreadable_by_reason"] == {reason: 1}


def test_answer_text_is_read_as_json_or_as_a_python_literal() -> None:
    # MIRAI's evaluator eval()-ed the answer text, so single quotes read; a repeated key stays visible
    # (eval would silently keep the last copy) and is dropped like a repeated JSON key.
    assert read_answer('{"04": ["042"]}').prediction == Prediction(frozenset({"04"}), frozenset({"042"}))
    assert read_answer("{'04': ['042']}").prediction == Prediction(frozenset({"04"}), frozenset({"042"}))
    repeated = read_answer("{'04': ['042'], '03': ['036'], '03': []}")
    assert repeated.prediction == Prediction(frozenset({"04"}), frozenset({"042"}))
    assert repeated.dropped == {"repeated_key": 2}
    assert read_answer("{4: ['042'], '04': ['043']}").dropped == {"bad_root_key": 1}


def test_file_formats_duplicates_and_unreadable_lines() -> None:
    lines = [
        json.dumps({"query_id": "a", "prediction": {"04": ["042"]}}),
        "not json at all",
        json.dumps({"query_id": "b", "prediction": {"04": ["042"]}}),
        json.dumps({"query_id": "b", "prediction": {"19": ["190"]}}),  # b twice: ambiguous
        '{"query_id": "c", "prediction": {"04": ["042"], "04": ["043"]}}',  # a repeated key, nothing else
        json.dumps({"query_id": "zz", "prediction": {}}),  # not a query of this split
        json.dumps({"prediction": {}}),  # no query id
        "",
    ]
    loaded = parse_predictions("\n".join(lines))
    assert loaded.unreadable_records == 2
    queries = [_query(q, ["042"]) for q in ("a", "b", "c", "d")]
    report = score_predictions(queries, loaded)
    status = {q["query_id"]: q["status"] for q in report["per_query"]}
    # c's only key is repeated: both copies dropped, nothing is left -> empty
    assert status == {"a": "scored", "b": "unreadable", "c": "empty", "d": "missing"}
    assert report["predictions"] == {
        "scored": 1,
        "empty": 1,
        "unreadable": 1,
        "missing": 1,
        "unreadable_by_reason": {"duplicate_query_id": 1},
        "dropped_items_by_reason": {"repeated_key": 2},
        "invalid_codes": 0,
        "unknown_query_ids": 1,
        "unreadable_records": 2,
    }
    # means over all four queries: only a is right (F1 1) -> 1/4; its KL is 0, the other three ~ln(1e10)
    assert report["mean"]["second_level"]["f1"] == pytest.approx(0.25)
    assert report["mean"]["binary_kl"] == pytest.approx(3 * LN_1E10 / 4, abs=1e-6)


def test_a_line_nested_too_deeply_is_an_unreadable_record() -> None:
    deep = json.dumps({"query_id": "b", "prediction": {"04": ["042"]}})[:-1] + ', "x": ' + "[" * 5000
    text = json.dumps({"query_id": "a", "prediction": {"04": ["042"]}}) + "\n" + deep + "]" * 5000 + "}\n"
    loaded = parse_predictions(text)
    assert loaded.by_query == {"a": {"04": ["042"]}} and loaded.unreadable_records == 1


def test_json_object_and_json_list_forms_read_the_same() -> None:
    as_object = parse_predictions(json.dumps({"a": {"04": ["042"]}, "b": {}}))
    as_list = parse_predictions(
        json.dumps([{"query_id": "a", "prediction": {"04": ["042"]}}, {"query_id": "b", "prediction": {}}])
    )
    one_line = parse_predictions(json.dumps({"query_id": "a", "prediction": {"04": ["042"]}}))
    assert as_object.by_query == as_list.by_query == {"a": {"04": ["042"]}, "b": {}}
    assert one_line.by_query == {"a": {"04": ["042"]}}
    repeated = parse_predictions('{"a": {}, "a": {"04": ["042"]}}')
    assert score_predictions([_query("a", ["042"])], repeated)["predictions"]["unreadable_by_reason"] == {
        "duplicate_query_id": 1
    }


def _queries_file(path: Path) -> None:
    groups = [
        Group(date(2025, 5, 12), "USA", "CHN", {"042", "043"}, 150, {"u1", "u2", "u3", "u4", "u5"}),
        Group(date(2025, 5, 13), "FRA", "DEU", {"042", "051"}, 150, {"u1", "u2", "u3", "u4", "u5"}),
    ]
    rows = [query_row(g, "2025-05", REGIONS, (1, 7, 30, 90)) for g in groups]
    write_parquet(table_from_rows(sorted(rows, key=lambda r: r["query_id"]), QUERY_SCHEMA), path)


def test_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    queries = tmp_path / "queries.parquet"
    _queries_file(queries)
    from almanac.core.ids import content_id

    usa, fra = content_id("2025-05-12", "USA", "CHN"), content_id("2025-05-13", "FRA", "DEU")
    predictions = tmp_path / "preds.jsonl"
    predictions.write_text(
        json.dumps({"query_id": usa, "prediction": {"04": ["042"], "03": ["036"]}})
        + "\n"
        + json.dumps({"query_id": fra, "prediction": {"04": ["042"]}})
        + "\n"
    )
    out = tmp_path / "report.json"
    args = [
        "--queries",
        str(queries),
        "--predictions",
        str(predictions),
        "--params",
        str(tmp_path / "none.yaml"),
    ]
    assert main([*args, "--out", str(out)]) == 0  # no params file: the default mapping, mirai
    report = json.loads(out.read_text())
    # USA-CHN is the brief example (second-level F1 1/2, quad KL 0); FRA-DEU is the root-05 case
    # (second-level F1 2/3, mirai quad KL 10.8197783) -> means 7/12 and 5.4098892
    assert report["quad_mapping"] == "mirai" and report["queries"] == 2
    assert report["mean"]["second_level"]["f1"] == pytest.approx(7 / 12)
    assert report["mean"]["quad_kl"] == pytest.approx(HALF_MISSING / 2, abs=1e-6)
    table = capsys.readouterr().out
    assert "2 queries (quad mapping mirai, KL epsilon 1e-10)" in table
    assert "| 2 | 0 | 0 | 0 | 0 | 0 |" in table  # scored, empty, unreadable, missing, dropped, invalid
    assert "| second level | 75.0 | 50.0 | 58.3 |" in table  # P (1/2 + 1)/2, R (1/2 + 1/2)/2, F1 7/12
    assert "| 0.000 | 5.410 |" in table
    assert main([*args, "--quad-mapping", "gdelt"]) == 0  # gdelt: the root-05 case costs nothing
    assert "| 0.000 | 0.000 |" in capsys.readouterr().out


def _gdelt_mapping_files(tmp_path: Path) -> tuple[list[str], Path]:
    """(--queries/--predictions options with no predictions, a params file choosing the gdelt mapping)."""
    queries = tmp_path / "queries.parquet"
    _queries_file(queries)
    (tmp_path / "p.yaml").write_text("scorer:\n  quad_mapping: gdelt\n")
    (tmp_path / "preds.json").write_text("{}")
    return ["--queries", str(queries), "--predictions", str(tmp_path / "preds.json")], tmp_path / "p.yaml"


def test_command_line_reads_the_mapping_from_params(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    files, params = _gdelt_mapping_files(tmp_path)
    assert main([*files, "--params", str(params)]) == 0
    assert "quad mapping gdelt" in capsys.readouterr().out
    assert load_predictions(tmp_path / "preds.json").by_query == {}


def test_command_line_missing_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(
            [
                "--queries",
                str(tmp_path / "nope.parquet"),
                "--predictions",
                str(tmp_path / "x.jsonl"),
                "--params",
                str(tmp_path / "none.yaml"),
            ]
        )
        == 1
    )
    assert "nope.parquet" in capsys.readouterr().err


def test_almanac_score_passes_the_global_params_and_its_own_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from almanac.cli import main as almanac_main

    files, params = _gdelt_mapping_files(tmp_path)
    # The global --params reaches the scorer ...
    assert almanac_main(["--params", str(params), "score", *files]) == 0
    assert "quad mapping gdelt" in capsys.readouterr().out
    # ... and an option after `score` overrides it.
    assert almanac_main(["--params", str(params), "score", *files, "--quad-mapping", "mirai"]) == 0
    assert "quad mapping mirai" in capsys.readouterr().out
    # Other commands still reject options they do not know.
    with pytest.raises(SystemExit):
        almanac_main(["status", *files])
