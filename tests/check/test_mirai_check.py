"""Each MIRAI invariant reports a hand-made query that breaks it."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from almanac.check.mirai import check_mirai, recorded_from_quads

DAY = date(2025, 5, 12)
QUADS = [
    {"date": DAY, "subject": "USA", "relation": "042", "object": "CHN", "urls": ["https://a.example/1"]},
    {"date": DAY, "subject": "USA", "relation": "036", "object": "CHN", "urls": ["https://b.example/2"]},
    {"date": DAY + timedelta(days=1), "subject": "USA", "relation": "190", "object": "CHN", "urls": []},
]


def query(**changes: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "query_id": "m1",
        "month": "2025-05",
        "date": DAY,
        "subject": "USA",
        "object": "CHN",
        "answers": ["036", "042"],
        "answer_roots": ["03", "04"],
        "urls": ["https://a.example/1", "https://b.example/2"],
        "horizons": [{"days": days, "last_history_date": DAY - timedelta(days=days)} for days in (1, 7)],
        "_file_month": "2025-05",
    }
    row.update(changes)
    return row


def failures(rows: list[dict[str, Any]]) -> dict[str, set[str]]:
    report = check_mirai(rows, recorded_from_quads(QUADS), ["2025-04", "2025-05"])
    return {result.name: set(result.failures) for result in report.violated}


def test_a_clean_query_passes() -> None:
    assert failures([query()]) == {}


@pytest.mark.parametrize(
    ("changes", "invariant"),
    [
        ({"_file_month": "2025-04"}, "date_in_month"),
        ({"month": "2025-06", "_file_month": "2025-06", "date": date(2025, 6, 12)}, "month_in_scope"),
        ({"answers": ["036", "042", "190"], "answer_roots": ["03", "04", "19"]}, "answers_recorded_that_day"),
        ({"answers": ["042"], "answer_roots": ["04"]}, "answers_complete"),
        ({"answer_roots": ["04"]}, "answer_roots_consistent"),
        ({"horizons": [{"days": 0, "last_history_date": DAY}]}, "history_before_query"),
        ({"urls": ["https://c.example/3"]}, "urls_traceable"),
    ],
)
def test_each_broken_query_is_reported(changes: dict[str, Any], invariant: str) -> None:
    assert invariant in failures([query(**changes)])


def test_ids_unique() -> None:
    assert failures([query(), query()]) == {"ids_unique": {"m1"}}
