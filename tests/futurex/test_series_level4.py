"""FutureX Level 4 from series questions: test-split numeric questions become events, their sigma is the
series' own (not the relative fallback), and the checker traces answer, dates and sigma to the question."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from almanac.check.futurex import Sources, check_futurex
from almanac.core.step import Drop
from almanac.futurex.config import TierConfig
from almanac.futurex.series_events import from_series, series_sigmas
from almanac.futurex.tiers import numeric


def question(**changes: Any) -> dict[str, Any]:
    row = {
        "question_id": "sq1",
        "series_id": "fred/UNRATE",
        "title": "Unemployment rate",
        "unit": "percent",
        "frequency": "M",
        "kind": "numeric",
        "question": "What will be the first figure of Unemployment rate published on or after 2025-05-01? "
        "Answer with one number in percent.",
        "forecast_date": date(2025, 4, 1),
        "resolution_date": date(2025, 5, 1),
        "prompt_values": [
            {"period_start": date(2025, 1, 1), "value": 4.0, "known_date": date(2025, 2, 7)},
            {"period_start": date(2025, 2, 1), "value": 4.1, "known_date": date(2025, 3, 7)},
        ],
        "answer": "4.2",
        "resolution_value": 4.2,
        "sigma": 0.05,
        "sigma_source": "recent_values",
        "split": "test",
    }
    return {**row, **changes}


def test_a_test_question_becomes_an_event_cut_off_at_its_forecast_date() -> None:
    event = from_series(question())
    assert not isinstance(event, Drop)
    assert (event["origin"], event["value"], event["answers"]) == ("series", 4.2, ["4.2"])
    assert (event["information_cutoff"], event["resolution_date"]) == (date(2025, 4, 1), date(2025, 5, 1))
    assert "2025-02-01: 4.1" in event["background"]


def test_training_questions_and_answers_shown_among_the_figures_are_left_out() -> None:
    drop = from_series(question(split="train"))
    assert isinstance(drop, Drop) and drop.reason == "in_training_split"
    # 4.1 is February's figure, shown in the background: the answer would be in the prompt
    drop = from_series(question(answer="4.1", resolution_value=4.1))
    assert isinstance(drop, Drop) and drop.reason == "answer_in_prompt"
    # 14.1 only contains the figure's digits: not the same number
    assert not isinstance(from_series(question(answer="14.1", resolution_value=14.1)), Drop)


def test_level4_sigma_is_the_series_own_else_the_flagged_fallback() -> None:
    event = from_series(question())
    assert not isinstance(event, Drop)
    sigmas = series_sigmas([question()])
    row = numeric(event, TierConfig(), sigmas)
    assert (row["sigma"], row["sigma_source"]) == (0.05, "series_recent_values")
    # no series sigma for it: 0.1 x |4.2| = 0.42, flagged relative
    fallback = numeric(event, TierConfig(), {})
    assert fallback["sigma"] == pytest.approx(0.42) and fallback["sigma_source"] == "relative"


def test_the_checker_traces_a_series_row_to_its_question() -> None:
    event = from_series(question())
    assert not isinstance(event, Drop)
    row = {**numeric(event, TierConfig(), series_sigmas([question()])), "_file_level": 4}
    tampered = {**row, "question_id": "q-sigma", "sigma": 0.5}
    training = {**row, "question_id": "q-train", "source_id": "sq2"}
    series = {"sq1": question(), "sq2": question(question_id="sq2", split="train")}
    sources = Sources({}, {}, {}, series=series)
    report = check_futurex([row, tampered, training], sources, max_per_source_day=0)
    failures = {result.name: set(result.failures) for result in report.violated}
    assert failures["sources_traceable"] == {"q-sigma"}
    assert failures["candidates_not_in_training"] == {"q-train"}
