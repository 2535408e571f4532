"""Outcome details in titles: the rule pass of the leakage step (almanac.core.outcomes), by hand."""

from __future__ import annotations

import pytest

from almanac.core.outcomes import numbers_in, outcome_phrases, strip_outcomes
from almanac.foresight.llm_tasks.leakage import parse_leakage


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        (
            "Which organization will choose Brennford's bid by 14 votes to 9 at its assembly by June 13, 2025?",
            "Which organization will choose Brennford's bid at its assembly by June 13, 2025?",
        ),
        (
            "Which party will hold 41 of the 80 seats, up from 29 at the last election by May 5, 2025?",
            "Which party will hold some of the some seats by May 5, 2025?",
        ),
        (
            "Which organization will have about 1.3 million customers by June 25, 2025?",
            "Which organization will have some customers by June 25, 2025?",
        ),
        ("Who will win by a 52-48 vote by July 2025?", "Who will win by July 2025?"),
        ("Who will win with 45% of the vote by 3 June 2025?", "Who will win by 3 June 2025?"),
        ("Which party wins a majority of one by May 2025?", "Which party wins by May 2025?"),
        # Dates, years, digits inside names and "one" are not outcome details.
        (
            "Who will lead the G7 summit on COVID-19 by 2025?",
            "Who will lead the G7 summit on COVID-19 by 2025?",
        ),
        (
            "Which one will host the 2027 Games by June 10, 2025?",
            "Which one will host the 2027 Games by June 10, 2025?",
        ),
    ],
)
def test_strip_outcomes(title: str, expected: str) -> None:
    assert strip_outcomes(title) == expected
    assert outcome_phrases(expected) == []
    assert [number.text for number in numbers_in(expected)] == []


def test_a_title_without_outcome_is_untouched() -> None:
    title = "Which organization will approve Respira-V, , for use in adults by April 16, 2025?"
    assert strip_outcomes(title) == title  # untidy, but nothing to remove: not counted as an edit


def test_numbers_are_read_with_approximator_and_scale_outside_dates() -> None:
    found = numbers_in("Will it sell roughly nine times the 2,400 units by May 5, 2025?")
    assert [(number.text, number.value) for number in found] == [("roughly nine", "nine"), ("2,400", "2400")]


def test_an_editor_title_that_moves_the_deadline_is_ignored() -> None:
    original = {
        "question_title": "Who will win by 14 votes to 9 by June 13, 2025?",
        "background": "b",
        "resolution_criteria": "r",
    }

    def reply(title: str) -> str:
        return (
            f"<edited><leak_found>yes</leak_found><question_title>{title}</question_title>"
            "<background>b</background><resolution_criteria>r</resolution_criteria></edited>"
        )

    assert parse_leakage(reply("Who will win by June 13, 2025?"), original).question_title == (
        "Who will win by June 13, 2025?"
    )
    assert parse_leakage(reply("Who will win by July 2025?"), original).question_title == ""
