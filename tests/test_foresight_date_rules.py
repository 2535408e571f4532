"""The deterministic date rules of the OpenForesight pipeline: parsing, clamping and repair."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from almanac.foresight.date_parsing import (
    DateInterval,
    DatesOutcome,
    apply_date_repair,
    date_text_problem,
    parse_date_interval,
    parse_question_date,
    resolve_dates,
)

# ---------------------------------------------------------------- dates


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2025-05-12", date(2025, 5, 12)),
        ("2025-05-12T10:00:00Z", date(2025, 5, 12)),
        ("2025-05-12T23:30:00-05:00", date(2025, 5, 12)),  # the date as written
        ("May 12, 2025", date(2025, 5, 12)),
        ("May 12 2025", date(2025, 5, 12)),
        ("12 May 2025", date(2025, 5, 12)),
        ("Monday, May 12th, 2025", date(2025, 5, 12)),
        ("12th of May, 2025", date(2025, 5, 12)),
        ("Sept. 3, 2025", date(2025, 9, 3)),
        ("by June 30, 2025", date(2025, 6, 30)),
        ("May 2025", None),
        ("unknown", None),
        ("", None),
        ("05/06/2025", None),
        ("2025/05/12", None),
        ("2025-02-30", None),
        ("Smarch 3, 2025", None),
        ("sometime after May 12, 2025", None),
    ],
)
def test_parse_question_date(text: str, expected: date | None) -> None:
    assert parse_question_date(text) == expected


PUBLISHED = date(2025, 5, 20)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("May 12, 2025", DateInterval(date(2025, 5, 12), date(2025, 5, 12), "day")),
        ("July 2025", DateInterval(date(2025, 7, 1), date(2025, 7, 31), "month")),
        ("by July 2025", DateInterval(date(2025, 7, 1), date(2025, 7, 31), "month")),
        ("in Sept. 2025", DateInterval(date(2025, 9, 1), date(2025, 9, 30), "month")),
        ("by Feb 2024", DateInterval(date(2024, 2, 1), date(2024, 2, 29), "month")),  # leap year
        ("end of June, 2025", DateInterval(date(2025, 6, 1), date(2025, 6, 30), "month")),
        ("2025-07", DateInterval(date(2025, 7, 1), date(2025, 7, 31), "month")),
        ("2025", DateInterval(date(2025, 1, 1), date(2025, 12, 31), "year")),
        ("by the end of 2025.", DateInterval(date(2025, 1, 1), date(2025, 12, 31), "year")),
        ("2025-13", None),
        ("before July 2025", None),  # means June 30 at the latest: not read as July
        ("mid-2025", None),
        ("Q3 2025", None),
        ("UNKNOWN", None),
        ("Smarch 2025", None),
    ],
)
def test_parse_date_interval(text: str, expected: DateInterval | None) -> None:
    assert parse_date_interval(text) == expected


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ("UNKNOWN", "resolution", "unknown_resolution_date"),
        ("", "start", "unknown_start_date"),
        ("n/a", "start", "unknown_start_date"),
        ("next week", "start", "unparseable_start_date"),
        ("2025-02-30", "resolution", "unparseable_resolution_date"),
        ("July 2025", "resolution", None),
    ],
)
def test_date_text_problem(text: str, field: str, expected: str | None) -> None:
    found = date_text_problem(text, field)
    assert (found[0] if found else None) == expected


def test_resolve_dates_keeps_a_good_question() -> None:
    outcome = resolve_dates("2025-05-01", "May 20, 2025", PUBLISHED)
    assert outcome == DatesOutcome(date(2025, 5, 1), PUBLISHED, False, None, "", "day", "day", False)


def test_resolution_after_article_is_clamped() -> None:
    outcome = resolve_dates("2025-05-01", "2025-06-30", PUBLISHED)
    assert (outcome.resolution, outcome.clamped, outcome.reason) == (PUBLISHED, True, None)
    # A datetime publish stamp is reduced to its day.
    stamped = resolve_dates("2025-05-01", "2025-06-30", datetime(2025, 5, 20, 18, 30))
    assert stamped.resolution == PUBLISHED


def test_month_and_year_deadlines_resolve_on_their_last_day() -> None:
    # "by May 2025" ends 05-31, after the article (05-20): clamped to the article day.
    may = resolve_dates("2025-05-01", "by May 2025", PUBLISHED)
    assert (may.resolution, may.clamped, may.resolution_precision, may.reason) == (
        PUBLISHED,
        True,
        "month",
        None,
    )
    year = resolve_dates("2025-05-01", "2025", PUBLISHED)
    assert (year.resolution, year.resolution_precision, year.reason) == (PUBLISHED, "year", None)
    # The same deadlines are rejected when the param asks for days only; a day still passes.
    for text in ("by May 2025", "2025"):
        assert resolve_dates("2025-05-01", text, PUBLISHED, "reject").reason == "partial_resolution_date"
    assert resolve_dates("2025-05-01", "2025-06-02", PUBLISHED, "reject").reason is None
    with pytest.raises(ValueError, match="partial_deadline"):
        resolve_dates("2025-05-01", "2025-06-02", PUBLISHED, "start")


def test_month_only_start_opens_on_its_first_day() -> None:
    outcome = resolve_dates("May 2025", "2025-05-25", PUBLISHED)
    assert (outcome.start, outcome.start_precision, outcome.reason) == (date(2025, 5, 1), "month", None)


@pytest.mark.parametrize("start", ["2025-05-20", "2025-05-25", "June 2025"])
def test_start_on_or_after_the_article_is_clamped_to_the_day_before(start: str) -> None:
    outcome = resolve_dates(start, "2025-06-30", PUBLISHED)
    assert (outcome.start, outcome.start_clamped, outcome.reason) == (date(2025, 5, 19), True, None)
    assert outcome.resolution == PUBLISHED


@pytest.mark.parametrize(
    ("start", "resolution", "reason"),
    [
        ("unknown", "2025-05-25", "unknown_start_date"),
        ("soon", "2025-05-25", "unparseable_start_date"),
        ("2025-05-01", "soon", "unparseable_resolution_date"),
        ("2025-05-01", "UNKNOWN", "unknown_resolution_date"),
        ("2025-05-10", "2025-05-15", "resolution_before_article"),
        ("2025-05-10", "2025-05-19", "resolution_before_article"),  # one day before the article
        ("2025-04-10", "April 2025", "resolution_before_article"),  # April 30 < May 20
        ("2025-05-10", "before June 2025", "unparseable_resolution_date"),
    ],
)
def test_resolve_dates_reject_reasons(start: str, resolution: str, reason: str) -> None:
    assert resolve_dates(start, resolution, PUBLISHED).reason == reason


@pytest.mark.parametrize("start", ["2025-04-01", "2025-05-19", "2025-05-20", "2025-07-01", "2025"])
@pytest.mark.parametrize("resolution", ["2025-05-20", "2025-05-21", "June 2025", "2026"])
def test_kept_dates_satisfy_the_leak_free_relation(start: str, resolution: str) -> None:
    outcome = resolve_dates(start, resolution, PUBLISHED)
    assert outcome.reason is None and outcome.start is not None and outcome.resolution is not None
    assert outcome.start < outcome.resolution and outcome.start <= PUBLISHED <= outcome.resolution


MONTH_START = date(2025, 5, 1)


def test_date_repair_never_moves_the_deadline_before_the_article() -> None:
    kept = resolve_dates("2025-05-03", "2025-05-20", PUBLISHED)
    repaired = apply_date_repair(kept, "May 9, 2025", MONTH_START)
    assert (repaired.resolution, repaired.reason) == (PUBLISHED, None)
    assert repaired.detail == "answer inferable from 2025-05-09"
    assert apply_date_repair(kept, "2025-05-20", MONTH_START) == kept
    assert apply_date_repair(kept, "unknown", MONTH_START) == kept


def test_date_repair_rejects() -> None:
    kept = resolve_dates("2025-05-03", "2025-05-20", PUBLISHED)
    assert apply_date_repair(kept, "2025-05-03", MONTH_START).reason == "answer_known_at_start"
    assert apply_date_repair(kept, "2025-04-28", MONTH_START).reason == "answer_known_at_start"
    # The question opened in April, but the answer was public before May: it leaks into May.
    april_start = resolve_dates("2025-04-20", "2025-05-20", PUBLISHED)
    assert apply_date_repair(april_start, "2025-04-28", MONTH_START).reason == "repaired_before_month"
    assert apply_date_repair(april_start, "2025-05-02", MONTH_START).reason is None


def test_date_repair_leaves_a_rejected_outcome_alone() -> None:
    rejected = resolve_dates("unknown", "2025-05-15", PUBLISHED)
    assert apply_date_repair(rejected, "2025-05-02", MONTH_START) == rejected
