"""Invariants of the FutureSim question set: a clean set passes; each test row breaks one invariant."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from almanac.check.futuresim import check_futuresim
from tests.check.rows import question

MONTHS = {"train": ["2025-04"], "validation": ["2025-05"], "test": ["2025-06"]}
ARTICLES = {"a-early": date(2025, 4, 10), "a-late": date(2025, 4, 25)}


def futuresim_row(**changes: Any) -> dict[str, Any]:
    """A train question whose date the repair loop moved from 04-20 to 04-12 (split start 04-01)."""
    row = question(
        resolution_date=date(2025, 4, 12),
        resolution_date_original=date(2025, 4, 20),
        repair_moves=1,
        repair_model="offline:m",
        answerability_model="offline:m",
    )
    row.update(changes)
    return row


def evidence(check: str, cap: date, article: str, published: date, **changes: Any) -> dict[str, Any]:
    row = {
        "question_id": "q-train-1",
        "check": check,
        "cap_date": cap,
        "rank": 0,
        "chunk_id": f"{article}:0",
        "article_id": article,
        "publish_date": published,
    }
    row.update(changes)
    return row


CLEAN_EVIDENCE = [
    evidence("repair_1", date(2025, 4, 20), "a-early", date(2025, 4, 10)),
    evidence("noise", date(2025, 5, 12), "a-late", date(2025, 4, 25)),  # after resolution: the noise check
]


def _violations(rows: list[dict[str, Any]], found: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    report = check_futuresim(rows, found, MONTHS, ARTICLES)
    return {result.name: result.failures for result in report.violated}


def test_a_clean_set_passes_every_invariant() -> None:
    report = check_futuresim([futuresim_row()], CLEAN_EVIDENCE, MONTHS, ARTICLES)
    assert report.ok, report.lines()
    assert len(report.invariants) == 9


@pytest.mark.parametrize(
    ("row", "invariant", "why"),
    [
        # Repaired to 03-28, before the train split opens on 04-01: FutureSim drops such a question.
        (
            futuresim_row(resolution_date=date(2025, 3, 28), question_start_date=date(2025, 3, 1)),
            "repaired_not_before_split_start",
            "before the train",
        ),
        # A repair only ever moves a date earlier.
        (
            futuresim_row(resolution_date=date(2025, 4, 25)),
            "repaired_not_before_split_start",
            "after the original",
        ),
        (futuresim_row(question_start_date=date(2025, 4, 12)), "start_before_resolution", "not before"),
        (futuresim_row(resolution_date_original=date(2025, 5, 2)), "original_resolution_in_split", "not in"),
    ],
)
def test_a_row_breaking_a_date_rule_is_named(row: dict[str, Any], invariant: str, why: str) -> None:
    violated = _violations([row], CLEAN_EVIDENCE)
    assert list(violated) == [invariant] and why in violated[invariant]["q-train-1"]


def test_evidence_published_after_its_cap_is_a_violation_even_if_recorded_earlier() -> None:
    # The role was shown a-late (published 04-25) by a search capped at 04-20; the filter recorded 04-19,
    # the corpus says 04-25: both the cap and the traceability rule fail.
    leaked = evidence("repair_1", date(2025, 4, 20), "a-late", date(2025, 4, 19))
    violated = _violations([futuresim_row()], [*CLEAN_EVIDENCE, leaked])
    assert set(violated) == {"evidence_not_after_cap", "evidence_traceable"}
    assert (
        "published 2025-04-25 after its cap 2025-04-20"
        in violated["evidence_not_after_cap"]["q-train-1:repair_1:a-late:0"]
    )


def test_evidence_rules_on_caps_owners_and_the_corpus() -> None:
    late_cap = evidence("repair_2", date(2025, 4, 22), "a-early", date(2025, 4, 10))  # cap after 04-20
    orphan = evidence("stale", date(2025, 1, 20), "a-early", date(2025, 4, 10), question_id="q-gone")
    unknown = evidence("stale", date(2025, 4, 20), "a-missing", date(2025, 4, 1))
    violated = _violations([futuresim_row()], [late_cap, orphan, unknown])
    assert set(violated) == {
        "repair_cap_not_after_resolution",
        "evidence_of_released_question",
        "evidence_not_after_cap",  # the orphan's chunk (04-10) is after its cap (01-20)
        "evidence_traceable",
    }
    assert list(violated["evidence_traceable"]) == ["q-train-1:stale:a-missing:0"]
