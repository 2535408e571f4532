"""Parsers of the complex-event tasks (OpenForecast recipe): dates, categories, timelines."""

from __future__ import annotations

from datetime import date

import pytest

from almanac.events.llm_tasks.article_category import parse_article_category
from almanac.events.llm_tasks.occurrence_date import parse_occurrence_date
from almanac.events.llm_tasks.replies import (
    ArticleCategory,
    EventDate,
    Timeline,
    TimelineEvent,
    TimelineOrder,
    normalise_event_date,
)
from almanac.events.llm_tasks.timeline_complement import parse_timeline_complement, timeline_complement_item
from almanac.events.llm_tasks.timeline_extract import parse_timeline_extract
from almanac.events.llm_tasks.timeline_reorder import parse_timeline_reorder
from almanac.events.llm_tasks.timelines import format_timeline
from almanac.llm.parsing import ParseError
from tests.llm.event_examples import EVACUATION, FLOOD, INQUIRY


def event_line(date_text: str, text: str) -> str:
    return f"<event><date>{date_text}</date><text>{text}</text></event>"


# -- dates ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("2025-03-04", EventDate("2025-03-04", "day")),
        ("2024-02-29", EventDate("2024-02-29", "day")),
        (" 2025-03. ", EventDate("2025-03", "month")),
        ("1969", EventDate("1969", "year")),
        ("Unknown", EventDate("unknown", "unknown")),
    ],
)
def test_normalise_event_date_accepts_the_three_precisions(raw: str, expected: EventDate) -> None:
    assert normalise_event_date(raw) == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("2025-02-30", "not a real calendar date"),
        ("2023-02-29", "not a real calendar date"),
        ("2025-13", "not a real calendar date"),
        ("0000", "not a real calendar date"),
        ("March 2025", "yyyy-MM-dd, yyyy-MM or yyyy"),
        ("2025-3-4", "yyyy-MM-dd, yyyy-MM or yyyy"),
        ("2025-03-04/2025-03-09", "yyyy-MM-dd, yyyy-MM or yyyy"),
        ("", "yyyy-MM-dd, yyyy-MM or yyyy"),
    ],
)
def test_normalise_event_date_rejects_other_forms(raw: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        normalise_event_date(raw)


# -- article category and occurrence date -----------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "<category>Event</category><topic>Disasters and accidents</topic>",
            ArticleCategory("event", "Disasters and accidents"),
        ),
        (
            "Looks like a war.\n<category>event.</category>\n<topic>armed conflicts & attacks</topic>",
            ArticleCategory("event", "Armed conflicts and attacks"),
        ),
        ("<category>Organisation</category><topic>none</topic>", ArticleCategory("organization", "")),
        ("<category>Person</category><topic>none</topic>", ArticleCategory("people", "")),
        ("<category>item Definition</category>", ArticleCategory("definition", "")),
        (
            "<category>Sports Competitions</category><topic>Sports</topic>",
            ArticleCategory("sports competition", ""),
        ),
        ("<category>Holidays</category>", ArticleCategory("holiday", "")),
    ],
)
def test_article_category_tolerates_spelling_variants(text: str, expected: ArticleCategory) -> None:
    assert parse_article_category(text, {}) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("It is an event about a flood.", "missing <category>"),
        ("<category>city</category><topic>none</topic>", "<category> must be exactly one of"),
        ("<category>event</category><topic>none</topic>", "an event article needs a <topic>"),
        ("<category>event</category>", "an event article needs a <topic>"),
        ("<category>event</category><topic>Weather</topic>", "<topic> must be exactly one of"),
    ],
)
def test_article_category_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_article_category(text, {})


def test_occurrence_date() -> None:
    assert parse_occurrence_date("<occurrence_date>2025-07</occurrence_date>", {}) == EventDate(
        "2025-07", "month"
    )
    assert parse_occurrence_date("<occurrence_date>unknown</occurrence_date>", {}).precision == "unknown"
    with pytest.raises(ParseError, match=r"<occurrence_date>: '2025-02-30' is not a real calendar date"):
        parse_occurrence_date("<occurrence_date>2025-02-30</occurrence_date>", {})
    with pytest.raises(ParseError, match="missing <occurrence_date>"):
        parse_occurrence_date("It happened in July 2025.", {})


# -- timeline extraction and complement --------------------------------------------------------------


def test_timeline_extract_reads_events_in_order() -> None:
    text = (
        "<timeline>\n"
        + event_line("2025-03-04", "1. The Sava river burst its banks\n in Veloria.")
        + "\n"
        + event_line("2025-03", "- Veloria ordered 4,000 residents to leave.")
        + "\n"
        + event_line("Unknown", "Parliament opened an inquiry into the dams.")
        + "\n</timeline>"
    )
    assert parse_timeline_extract(text, {}) == Timeline((FLOOD, EVACUATION, INQUIRY))


def test_timeline_extract_none_is_an_empty_timeline() -> None:
    assert parse_timeline_extract("<timeline>None.</timeline>", {}) == Timeline(())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (event_line("2025-03-04", "The river rose."), "missing <timeline>"),
        ("<timeline>The river rose on 4 March.</timeline>", "holds no <event>"),
        ("<timeline><event><text>The river rose.</text></event></timeline>", "<event> 1: missing <date>"),
        (
            "<timeline>" + event_line("2025", "A") + event_line("2025-02-30", "B") + "</timeline>",
            "<event> 2: '2025-02-30' is not a real calendar date",
        ),
        ("<timeline>" + event_line("2025", "1. ") + "</timeline>", "<event> 1: <text> is empty"),
    ],
)
def test_timeline_extract_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_timeline_extract(text, {})


def complement_variables(events: list[TimelineEvent]) -> dict[str, str]:
    return dict(timeline_complement_item("ce:doc:1", events, date(2025, 3, 9), "News", "text", 0).variables)


def test_timeline_complement_adds_before_between_and_after_keeping_existing_wording() -> None:
    variables = complement_variables([FLOOD, INQUIRY])
    text = (
        "<timeline>"
        + "".join(
            [
                event_line("2025-02", "Heavy rain fell on the Sava basin for two weeks."),  # before
                event_line(
                    "2025-03-04", "the sava river burst its banks in Veloria"
                ),  # case and full stop differ
                event_line("2025-03-05", "Veloria ordered 4,000 residents to leave."),  # between
                event_line("2025-03-08", "Parliament opened an inquiry into the dams."),  # date refined
                event_line("2025-03-09", "The water level fell below the alarm mark."),  # after
            ]
        )
        + "</timeline>"
    )
    events = parse_timeline_complement(text, variables).events
    assert [event.text for event in events] == [
        "Heavy rain fell on the Sava basin for two weeks.",
        "The Sava river burst its banks in Veloria.",  # the given wording, byte for byte
        "Veloria ordered 4,000 residents to leave.",
        "Parliament opened an inquiry into the dams.",
        "The water level fell below the alarm mark.",
    ]
    assert events[3].date == EventDate("2025-03-08", "day")


def test_timeline_complement_keeps_a_known_date_the_answer_dropped() -> None:
    variables = complement_variables([FLOOD])
    text = "<timeline>" + event_line("unknown", FLOOD.text) + "</timeline>"
    assert parse_timeline_complement(text, variables).events == (FLOOD,)


def test_timeline_complement_with_nothing_new_returns_the_given_timeline() -> None:
    variables = complement_variables([FLOOD, EVACUATION])
    text = "<timeline>\n" + format_timeline([FLOOD, EVACUATION]) + "\n</timeline>"  # numbers copied too
    assert parse_timeline_complement(text, variables) == Timeline((FLOOD, EVACUATION))


def test_timeline_complement_rejects_a_dropped_or_reworded_event() -> None:
    variables = complement_variables([FLOOD, EVACUATION, INQUIRY])
    reworded = (
        "<timeline>"
        + "".join(
            [
                event_line("2025-03-04", FLOOD.text),
                event_line("2025-03", "Veloria told 4,000 residents to leave."),
                event_line("unknown", INQUIRY.text),
            ]
        )
        + "</timeline>"
    )
    with pytest.raises(ParseError, match="existing event 2 is missing or reworded: 'Veloria ordered"):
        parse_timeline_complement(reworded, variables)
    with pytest.raises(ParseError, match="existing event 1 is missing"):
        parse_timeline_complement("<timeline>none</timeline>", variables)


def test_timeline_complement_rejects_reordered_existing_events() -> None:
    variables = complement_variables([FLOOD, EVACUATION, INQUIRY])
    swapped = (
        "<timeline>"
        + "".join(
            [
                event_line("2025-03-04", FLOOD.text),
                event_line("unknown", INQUIRY.text),
                event_line("2025-03", EVACUATION.text),
            ]
        )
        + "</timeline>"
    )
    with pytest.raises(ParseError, match=r"existing event 3 .* was moved"):
        parse_timeline_complement(swapped, variables)


# -- re-ordering ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("3, 1, 2", (2, 0, 1)),
        ("[3,1,2].", (2, 0, 1)),
        ("event 2 > event 3 > event 1", (1, 2, 0)),
        ("1\n2\n3", (0, 1, 2)),
    ],
)
def test_timeline_reorder_reads_a_permutation(raw: str, expected: tuple[int, ...]) -> None:
    assert parse_timeline_reorder(f"<order>{raw}</order>", {"n_events": "3"}) == TimelineOrder(expected)


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("3, 1, 1", r"repeated: 1; missing: 2"),
        ("3, 1", r"missing: 2"),
        ("3, 1, 2, 4", r"not event numbers: 4"),
        ("0, 1, 2", r"not event numbers: 0; missing: 3"),
        ("3, 1, second", "must list event numbers separated by commas"),
    ],
)
def test_timeline_reorder_rejects_non_permutations(raw: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_timeline_reorder(f"<order>{raw}</order>", {"n_events": "3"})
    with pytest.raises(ParseError, match="missing <order>"):
        parse_timeline_reorder("3, 1, 2", {"n_events": "3"})


def test_only_a_leading_list_mark_is_stripped() -> None:
    text = "<timeline>" + event_line("2025", "2.5 million people fled the 3. district.") + "</timeline>"
    [event] = parse_timeline_extract(text, {}).events
    assert event.text == "2.5 million people fled the 3. district."
