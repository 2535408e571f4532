"""FutureX's formulas (appendix E, section 4.1), each against a value worked out by hand."""

from __future__ import annotations

import pytest

from almanac.futurex.metrics import (
    clipped_score,
    exact_match,
    f1_score,
    overall_present,
    overall_score,
    ranking_score,
)


def test_level1_is_the_zero_one_score() -> None:
    assert exact_match("Kessling United", "Kessling United") == 1.0
    assert exact_match("Kessling United", "Brennford Rovers") == 0.0


def test_level2_f1_over_option_sets() -> None:
    # 2 of 4 predicted are right (P = 1/2), 2 of 3 true found (R = 2/3): F1 = 2PR/(P+R) = (2/3)/(7/6) = 4/7.
    assert f1_score({"a", "b", "c"}, {"a", "b", "d", "e"}) == pytest.approx(4 / 7)
    assert f1_score({"a", "b"}, {"a", "b"}) == 1.0
    assert f1_score({"a", "b"}, {"c"}) == 0.0
    assert f1_score({"a", "b"}, set()) == 0.0


def test_level3_equation_1_full_and_partial_credit() -> None:
    same = str.__eq__
    assert ranking_score(["x", "y", "z"], ["x", "y", "z"], same) == 1.0
    # Right items, wrong order: 0.8 * 3/3.
    assert ranking_score(["x", "y", "z"], ["x", "z", "y"], same) == pytest.approx(0.8)
    # One of three: 0.8 * 1/3.
    assert ranking_score(["x", "y", "z"], ["x", "w"], same) == pytest.approx(0.8 / 3)
    # A single answer (k = 1) is 1 or 0.
    assert ranking_score(["x"], ["x"], same) == 1.0
    assert ranking_score(["x"], ["w"], same) == 0.0


def test_level3_a_longer_list_is_cut_to_k_items() -> None:
    same = str.__eq__
    names = [f"n{i}" for i in range(14)]
    # k = 1: fifteen names are scored as their first one. The right name 5th: [n0] -> 0, where the
    # uncut overlap would give 0.8 * 1/1 = 0.8; first: [x] -> 1, no more than the one right name.
    assert ranking_score(["x"], [*names[:4], "x", *names[4:]], same) == 0.0
    assert ranking_score(["x"], ["x", *names], same) == 1.0 == ranking_score(["x"], ["x"], same)
    # k = 3: [y, x, w | z, ...] is cut to [y, x, w]: 2 of 3 right, 0.8 * 2/3 (z after the cut counts not).
    assert ranking_score(["x", "y", "z"], ["y", "x", "w", "z", "v"], same) == pytest.approx(1.6 / 3)


def test_level4_clipped_squared_error() -> None:
    # (100 - 95) / 10 = 0.5, squared 0.25: 0.75.
    assert clipped_score(100.0, 95.0, 10.0) == pytest.approx(0.75)
    # Two sigmas off: 1 - 4 < 0, clipped to 0.
    assert clipped_score(100.0, 80.0, 10.0) == 0.0
    assert clipped_score(100.0, 100.0, 10.0) == 1.0
    with pytest.raises(ValueError, match="sigma"):
        clipped_score(1.0, 1.0, 0.0)


def test_overall_weights_10_20_30_40_over_all_four_tiers() -> None:
    weights = (0.1, 0.2, 0.3, 0.4)
    # 0.1 * 1 + 0.2 * 0.5 + 0.3 * 0.25 + 0.4 * 0 = 0.275.
    assert overall_score({1: 1.0, 2: 0.5, 3: 0.25, 4: 0.0}, weights) == pytest.approx(0.275)
    assert overall_present({1: 1.0, 2: 0.5, 3: 0.25, 4: 0.0}, weights)[0] == pytest.approx(0.275)
    # No Level-4 score: the full score counts it 0 (0.275, not raised by leaving the hardest tier out) ...
    assert overall_score({1: 1.0, 2: 0.5, 3: 0.25, 4: None}, weights) == pytest.approx(0.275)
    assert overall_score({1: 1.0}, weights) == pytest.approx(0.1)
    # ... and the mean over the tiers present, beside it, renormalises: 0.275 / 0.6.
    score, used = overall_present({1: 1.0, 2: 0.5, 3: 0.25, 4: None}, weights)
    assert score == pytest.approx(0.275 / 0.6)
    assert used == pytest.approx({1: 0.1 / 0.6, 2: 0.2 / 0.6, 3: 0.3 / 0.6})
    assert overall_present({1: None, 2: None, 3: None, 4: None}, weights) == (None, {})
    assert overall_score({1: None, 2: None, 3: None, 4: None}, weights) == 0.0
