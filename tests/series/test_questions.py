"""Series questions: prompts as of the forecast date, resolution from the first later release, splits,
scores and baselines, and the checker catching a revised value planted in a prompt.

The series below is monthly with releases by hand: February is first printed 101 on March 12 and revised
to 100.5 on April 10. Worked by hand for forecast date April 1 and a 30-day horizon (resolution May 1).
"""

from __future__ import annotations

import math
from datetime import date
from typing import Any

import pytest

from almanac.check.series import check_series
from almanac.series.questions import SeriesQuestionConfig, Skipped, build_questions
from almanac.series.score import baseline_forecast, baseline_scores, score_question

SPLITS = {"train": ["2025-04"], "validation": [], "test": ["2025-05"]}


def obs(period: str, value: float | None, known: str, revised_unknown: bool = False) -> dict[str, Any]:
    return {
        "series_id": "fred/TEST",
        "provider": "fred",
        "title": "Test index",
        "unit": "points",
        "frequency": "M",
        "period_start": date.fromisoformat(period),
        "period_end": date.fromisoformat(period),
        "value": value,
        "known_date": date.fromisoformat(known),
        "known_date_rule": "vintage",
        "revised_unknown": revised_unknown,
        "source_file": "test",
    }


ROWS = [
    obs("2025-01-01", 100.0, "2025-02-10"),
    obs("2025-02-01", 101.0, "2025-03-12"),
    obs("2025-02-01", 100.5, "2025-04-10"),  # the revision
    obs("2025-03-01", 102.0, "2025-04-10"),
    obs("2025-04-01", 101.5, "2025-05-13"),
]
CONFIG = SeriesQuestionConfig(horizons_days=(30,), forecast_days=(1,))


def built() -> tuple[list[dict[str, Any]], list[Skipped]]:
    items = list(build_questions(ROWS, SPLITS, CONFIG))
    return [i for i in items if isinstance(i, dict)], [i for i in items if isinstance(i, Skipped)]


def test_questions_show_only_what_stood_on_the_forecast_date() -> None:
    questions, skipped = built()
    assert [(q["kind"], q["forecast_date"], q["resolution_date"], q["split"]) for q in questions] == [
        ("binary", date(2025, 4, 1), date(2025, 5, 1), "test"),
        ("numeric", date(2025, 4, 1), date(2025, 5, 1), "test"),
    ]
    binary, numeric = questions
    # On April 1 February stood at its first print (101); the April 10 revision is not shown.
    assert [(v["period_start"].month, v["value"]) for v in binary["prompt_values"]] == [
        (1, 100.0),
        (2, 101.0),
    ]
    # First release on or after May 1: April's 101.5 (May 13) > 101 -> yes
    assert (binary["answer"], numeric["answer"], numeric["resolution_known_date"]) == (
        "yes",
        "101.5",
        date(2025, 5, 13),
    )
    # sigma: the values known on May 1 (Jan 100, Feb 100.5 revised, Mar 102), population std
    assert numeric["sigma"] == pytest.approx(
        math.sqrt(((100 - 100.8333) ** 2 + (100.5 - 100.8333) ** 2 + (102 - 100.8333) ** 2) / 3), rel=1e-4
    )
    assert numeric["sigma_source"] == "recent_values" and binary["sigma"] is None
    # May 1 + 30 days: nothing released on or after May 31 yet
    assert [(s.reason, s.detail) for s in skipped] == [
        ("not_resolved_yet", "nothing published on or after 2025-05-31")
    ]


def test_a_series_without_release_dates_is_left_out_unless_allowed() -> None:
    rows = [{**row, "revised_unknown": True} for row in ROWS]
    assert [s.reason for s in build_questions(rows, SPLITS, CONFIG) if isinstance(s, Skipped)] == [
        "unvintaged_series"
    ]
    allowed = SeriesQuestionConfig(horizons_days=(30,), forecast_days=(1,), allow_unvintaged=True)
    assert sum(isinstance(q, dict) for q in build_questions(rows, SPLITS, allowed)) == 2


def test_scores_and_naive_baselines_by_hand() -> None:
    (binary, numeric), _ = built()
    assert baseline_forecast(binary, "no_change") == 0.0 and score_question(binary, 0.0) == 1.0  # it rose
    assert score_question(binary, 0.5) == 0.25
    assert baseline_forecast(binary, "last_trend") == 1.0  # Jan -> Feb went up
    assert score_question(numeric, 101.0) == pytest.approx(1 - (0.5 / numeric["sigma"]) ** 2)
    # last trend: +1 a period; Feb -> Apr is 59 days at 31-day spacing: 101 + 59/31
    assert baseline_forecast(numeric, "last_trend") == pytest.approx(101 + 59 / 31)
    report = baseline_scores([binary, numeric])
    assert report["binary"]["base_rate_higher"] == 1.0 and report["binary"]["chance"]["mean"] == 0.25
    assert report["numeric"]["no_change"]["mean"] == pytest.approx(
        1 - (0.5 / numeric["sigma"]) ** 2, abs=1e-4
    )


def test_the_checker_passes_built_questions_and_reports_a_planted_revised_value() -> None:
    questions, _ = built()
    assert check_series(questions, ROWS, SPLITS).ok
    planted = {**questions[0], "prompt_values": [dict(v) for v in questions[0]["prompt_values"]]}
    planted["prompt_values"][1]["value"] = 100.5  # February's revision, known only on April 10
    late = {
        **questions[1],
        "prompt_values": [
            *questions[1]["prompt_values"],
            {"period_start": date(2025, 3, 1), "value": 102.0, "known_date": date(2025, 4, 10)},
        ],
    }
    wrong = {**questions[0], "question_id": "q-wrong", "answer": "no"}
    report = check_series([planted, late, wrong], ROWS, SPLITS)
    failures = {result.name: set(result.failures) for result in report.violated}
    assert failures == {
        "prompt_values_as_of_forecast_date": {planted["question_id"], late["question_id"]},
        "resolution_reproducible": {"q-wrong"},
    }
