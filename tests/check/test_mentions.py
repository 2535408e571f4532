"""The checker's reading of dates named in a text, worked out by hand."""

from __future__ import annotations

from datetime import date

from almanac.core.date_mentions import dates_named

CONTEXT = date(2025, 4, 2)


def spans(text: str) -> list[tuple[str, date, date, str]]:
    return [(m.text, m.first, m.last, m.precision) for m in dates_named(text, CONTEXT)]


def test_days_months_and_iso() -> None:
    assert spans("Signed on 14 May 2025 and ratified on June 3, 2025.") == [
        ("14 May 2025", date(2025, 5, 14), date(2025, 5, 14), "day"),
        ("June 3, 2025", date(2025, 6, 3), date(2025, 6, 3), "day"),
    ]
    assert spans("Due in Sept. 2025; filed 2025-03-30.") == [
        ("Sept. 2025", date(2025, 9, 1), date(2025, 9, 30), "month"),
        ("2025-03-30", date(2025, 3, 30), date(2025, 3, 30), "day"),
    ]


def test_yearless_day_takes_the_context_year() -> None:
    assert spans("the 21st of February") == [
        ("21st of February", date(2025, 2, 21), date(2025, 2, 21), "day")
    ]


def test_what_is_not_a_date() -> None:
    assert spans("Talks may resume in May; the 2026 World Cup.") == []
    # No 31 April, but the text still names the month.
    assert spans("on 31 April 2025") == [("April 2025", date(2025, 4, 1), date(2025, 4, 30), "month")]
