"""The scorer on cases worked out by hand (natural logs; epsilon = 1e-10 unless said otherwise).

Useful values: ln(1e10) = 23.0258509, ln(5e9) = ln 5 + 9 ln 10 = 22.3327037, ln 0.5 = -0.6931472,
ln 1.125 = 0.1177830, ln 1.5 = 0.4054651.
"""

from __future__ import annotations

from typing import Any

import pytest

from almanac.core.params import parse_section
from almanac.mirai.score import ScorerConfig, score_predictions
from tests.mirai.score_cases import HALF_MISSING, LN_1E10, _query


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
