"""relation_split on hand-built quads: month boundaries, recipes' thresholds, answers, accounting, determinism.

Unless a test says otherwise it runs the default ``paper`` recipe on a corpus where every URL's article
text survived cleaning (``every_url``), so the article threshold counts every URL.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from almanac.core.ids import content_id
from almanac.core.rejects import StageLedger
from almanac.mirai.recipe import RELAXED
from almanac.mirai.relation_split import (
    QUERY_SCHEMA,
    build_month,
    date_text,
    month_window,
)
from tests.mirai.quads import REGIONS, every_url, quad, table, urls
from tests.mirai.relation_quads import CONFIG, _build, _strong


@pytest.mark.parametrize(
    ("month", "last"),
    [("2024-02", 29), ("2025-02", 28), ("2025-04", 30), ("2025-05", 31), ("2025-12", 31)],
)
def test_month_window_is_first_to_last_calendar_day(month: str, last: int) -> None:
    first_day, last_day = month_window(month)
    year, number = int(month[:4]), int(month[5:])
    assert first_day == date(year, number, 1)
    assert last_day == date(year, number, last)


@pytest.mark.parametrize(
    ("month", "inside", "outside"),
    [
        ("2025-05", ["2025-05-01", "2025-05-31"], ["2025-04-30", "2025-06-01"]),
        ("2025-04", ["2025-04-01", "2025-04-30"], ["2025-03-31", "2025-05-01"]),
        ("2024-02", ["2024-02-01", "2024-02-29"], ["2024-01-31", "2024-03-01"]),
        ("2025-02", ["2025-02-01", "2025-02-28"], ["2025-01-31", "2025-03-01"]),
        ("2025-12", ["2025-12-01", "2025-12-31"], ["2025-11-30", "2026-01-01"]),
    ],
)
def test_events_on_the_first_and_last_day_are_in_the_days_around_are_out(
    month: str, inside: list[str], outside: list[str]
) -> None:
    queries, ledger = _build([_strong(day) for day in inside + outside], month)
    assert sorted(d.isoformat() for d in queries.column("date").to_pylist()) == inside
    assert ledger.extra["quads_in_month"] == 2 and ledger.extra["groups"] == 2


def _day_pair() -> tuple[list[dict[str, Any]], frozenset[str]]:
    """USA->CHN on 2025-05-12: one test event (042) among four, plus the reverse direction."""
    day = "2025-05-12"
    a = [f"https://a.example/{i}" for i in range(9)]  # a[1] .. a[8] are used
    rows = [
        quad(day, "USA", "190", "CHN", 50, [a[1], a[2]]),
        quad(day, "USA", "042", "CHN", 150, [a[2], a[3], a[4], a[5], a[6]]),
        quad(day, "USA", "036", "CHN", 55, [a[7]]),
        quad(day, "USA", "043", "CHN", 60, [a[8], a[1]]),
        quad(day, "CHN", "042", "USA", 500, urls("reverse", 9)),  # the other direction: its own query
    ]
    # a[1] and a[7] lost their text in cleaning; every other URL kept it
    texts = frozenset(every_url(rows) - {a[1], a[7]})
    return rows, texts


def test_query_row_answers_and_horizons() -> None:
    rows, texts = _day_pair()
    queries, ledger = build_month(table(rows), "2025-05", CONFIG, REGIONS, texts=texts)  # paper: default
    assert queries.schema == QUERY_SCHEMA
    by_query = {row["query"]: row for row in queries.to_pylist()}
    assert set(by_query) == {"(2025-05-12, USA, ?, CHN)", "(2025-05-12, CHN, ?, USA)"}
    row = by_query["(2025-05-12, USA, ?, CHN)"]
    assert row["query_id"] == content_id("2025-05-12", "USA", "CHN")
    assert row["month"] == "2025-05" and row["date"] == date(2025, 5, 12)
    assert row["recipe"] == "paper"
    assert row["date_text"] == "May 12, 2025"
    assert (row["subject"], row["object"]) == ("USA", "CHN")
    assert (row["subject_region"], row["object_region"]) == ("Northern America", "Eastern Asia")
    # the answers are every relation of the day-pair with text, not only the one event that passed the
    # thresholds; 036's only article (a/7) lost its text, so 036 is no answer (the authors' data_kg)
    assert row["answers"] == ["042", "043", "190"]
    assert [(r.reason, r.id) for r in ledger.rejects if r.reason == "event_without_text"] == [
        ("event_without_text", rows[2]["quad_id"])
    ]
    assert row["test_relations"] == ["042"]  # the only event with >= 100 mentions (150) and 5 texts
    assert set(row["test_relations"]) <= set(row["answers"])
    assert row["answers_by_root"] == [
        {"root": "04", "relations": ["042", "043"]},
        {"root": "19", "relations": ["190"]},
    ]
    assert row["answer_roots"] == ["04", "19"]
    assert row["num_daily_mentions"] == 50 + 150 + 60
    assert row["n_articles"] == 7  # a.example/1..6 and 8 (a/7 went with 036), a/1, a/2 shared
    assert row["n_text_articles"] == 6  # a/1 has no surviving text: 7 - 1
    assert row["urls"] == [f"https://a.example/{i}" for i in (1, 2, 3, 4, 5, 6, 8)]
    # May 12 - 30 days = April 12; - 90 days = February 11 (12 + 30 + 31 + 17)
    assert row["horizons"] == [
        {"days": 1, "last_history_date": date(2025, 5, 11)},
        {"days": 7, "last_history_date": date(2025, 5, 5)},
        {"days": 30, "last_history_date": date(2025, 4, 12)},
        {"days": 90, "last_history_date": date(2025, 2, 11)},
    ]
    assert queries.column("query_id").to_pylist() == sorted(queries.column("query_id").to_pylist())


def test_relaxed_query_row_tests_every_relation_and_counts_urls() -> None:
    rows, _ = _day_pair()
    # the stage hands relaxed no texts: articles are source URLs, fetched or not
    queries, ledger = build_month(table(rows), "2025-05", CONFIG, REGIONS, recipe=RELAXED)
    row = next(r for r in queries.to_pylist() if r["query"] == "(2025-05-12, USA, ?, CHN)")
    assert row["recipe"] == "relaxed"
    assert row["answers"] == row["test_relations"] == ["036", "042", "043", "190"]
    assert (row["n_articles"], row["n_text_articles"]) == (8, 0)
    assert ledger.extra["thresholds"]["applied_to"] == "group"
    assert ledger.extra["thresholds"]["articles_counted"] == "source URLs"


def test_unknown_recipe_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown MIRAI recipe 'strict'"):
        build_month(table([_strong("2025-05-01")]), "2025-05", CONFIG, REGIONS, recipe="strict")


def test_date_text_has_no_leading_zero() -> None:
    assert date_text(date(2025, 6, 3)) == "June 3, 2025"


def _threshold_edges() -> list[dict[str, Any]]:
    day = "2025-05-02"
    return [
        # FRA->DEU: 60 + 50 = 110 mentions, 3 + 3 URLs sharing one = 5 articles; no quad alone has
        # 100 mentions or 5 articles, the group has both
        quad(day, "FRA", "042", "DEU", 60, ["u/1", "u/2", "u/3"]),
        quad(day, "FRA", "057", "DEU", 50, ["u/3", "u/4", "u/5"]),
        # RUS->UKR: 99 mentions (even with 20 articles)
        quad(day, "RUS", "190", "UKR", 99, urls("r", 20)),
        # EGY->NGA: exactly 100 mentions but 4 articles
        quad(day, "EGY", "042", "NGA", 100, urls("e", 4)),
        # BRA->AUS: exactly 100 and exactly 5 -> a query under both recipes (both thresholds are >=)
        quad(day, "BRA", "036", "AUS", 100, urls("b", 5)),
    ]


def _reasons(ledger: StageLedger) -> dict[str, str]:
    """Subject country -> reject reason (details start with the label "(date, SUBJECT, ?, OBJECT)")."""
    return {r.detail.split(" ")[1].rstrip(","): r.reason for r in ledger.rejects}


def test_relaxed_thresholds_apply_to_the_group() -> None:
    queries, ledger = build_month(table(_threshold_edges()), "2025-05", CONFIG, REGIONS, recipe=RELAXED)
    assert sorted(queries.column("query").to_pylist()) == [
        "(2025-05-02, BRA, ?, AUS)",
        "(2025-05-02, FRA, ?, DEU)",
    ]
    assert _reasons(ledger) == {"RUS": "group_too_few_mentions", "EGY": "group_too_few_urls"}
    metrics = ledger.metrics()
    assert metrics["items_in"] == 4 and metrics["items_out"] == 2
    assert metrics["rejected_by_reason"] == {"group_too_few_mentions": 1, "group_too_few_urls": 1}
    assert metrics["thresholds"]["applied_to"] == "group"


def test_paper_thresholds_apply_to_each_event() -> None:
    queries, ledger = _build(_threshold_edges())
    # FRA->DEU's group sum (110 mentions, 5 URLs) no longer helps: neither event has 100 mentions alone
    assert queries.column("query").to_pylist() == ["(2025-05-02, BRA, ?, AUS)"]
    assert _reasons(ledger) == {
        "FRA": "event_too_few_mentions",
        "RUS": "event_too_few_mentions",
        "EGY": "event_too_few_articles",
    }
    metrics = ledger.metrics()
    assert metrics["items_in"] == 4 and metrics["items_out"] == 1
    assert metrics["rejected_by_reason"] == {"event_too_few_articles": 1, "event_too_few_mentions": 2}
    assert metrics["thresholds"] == {
        "applied_to": "event",
        "answers_need_text": True,
        "admission": "every",
        "min_daily_mentions": 100,
        "min_articles": 5,
        "articles_counted": "cleaned text survived",
    }
