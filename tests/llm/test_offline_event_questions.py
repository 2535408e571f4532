"""The offline baseline of the argument-question and negative tasks on hand-written timelines.

Every task runs through run_task, so each test also checks that the baseline writes the model format.
Expected values were worked out by hand from the rules in the offline modules' docstrings.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from almanac.events.llm_tasks.argument_question import argument_question_item
from almanac.events.llm_tasks.event_arguments import event_arguments_item
from almanac.events.llm_tasks.event_negatives import event_negatives_item
from almanac.events.llm_tasks.replies import (
    EventArguments,
    TimelineEvent,
)
from almanac.events.llm_tasks.timeline_complement import timeline_complement_item
from almanac.events.llm_tasks.timeline_extract import timeline_extract_item
from almanac.events.llm_tasks.timeline_reorder import timeline_reorder_item
from almanac.events.llm_tasks.timelines import format_timeline
from almanac.llm.cache import LLMCache
from almanac.llm.registry import TaskItem
from tests.llm.offline_events_run import WIKI_TEXT, cache, event, run

__all__ = ["cache"]  # pytest fixtures used by name


# ------------------------------------------------------------------------------- tasks on samples

TARGET = event("The French government declared a state of emergency in Paris.", "2025-05-04")
TARGET_ARGUMENTS = EventArguments(
    "declare state of emergency", "The French government", "a state of emergency", "Paris", ""
)
BACKGROUND = [
    event("The Italian government closed its border.", "2025-04-20"),
    event("Protests spread to Berlin.", "2025-05-01"),
]
LATER = [event("The European Commission offered financial aid to Madrid.", "2025-05-10")]


def question(argument: str, background: Sequence[TimelineEvent], later: Sequence[TimelineEvent]) -> TaskItem:
    return argument_question_item(argument, background, TARGET, TARGET_ARGUMENTS, argument, later)


def test_argument_questions_and_wrong_answers(cache: LLMCache) -> None:
    arguments = ("subject", "object", "location", "time", "event_type")
    items = [question(argument, BACKGROUND, LATER) for argument in arguments]
    found = dict(zip(arguments, run("argument_question", items, cache), strict=True))
    subject = found["subject"]
    assert subject.question == "Who will declare a state of emergency in Paris?"
    assert subject.answer == "The French government"
    # No entity label for the answer: the other events' subjects, later ones first, then the background
    # from the latest back ("Protests" before "The Italian government").
    assert subject.negatives == ("The European Commission", "Protests", "The Italian government")
    obj = found["object"]
    assert obj.question == "What will the French government declare in Paris?"
    assert obj.negatives == ("financial aid", "its border", "a new proposal")  # then a generic value
    location = found["location"]
    assert location.question == "Where will the French government declare a state of emergency?"
    assert location.answer == "Paris"
    assert location.negatives == ("Madrid", "Berlin", "the capital")  # places only, then a generic one
    time = found["time"]
    assert time.question.startswith("When will the French government declare")
    assert time.answer == "2025-05-04"  # no time in the text: the timeline date
    assert time.negatives == ("2025-05-10", "2025-05-01", "2025-04-20")
    kind = found["event_type"]
    assert kind.question == "What will the French government do in Paris?"
    assert kind.answer == "declare state of emergency"
    assert kind.negatives == ("offer aid", "spread", "close border")


def test_argument_questions_fall_back_on_a_poor_timeline(cache: LLMCache) -> None:
    obj, time = run("argument_question", [question("object", [], []), question("time", [], [])], cache)
    assert obj.negatives == ("a new proposal", "the previous agreement", "an emergency measure")
    assert time.negatives == ("2025-05-11", "2025-04-27", "2025-06-03")  # a week and a month away


def test_event_negatives_swap_arguments_from_the_timeline(cache: LLMCache) -> None:
    item = event_negatives_item("n", BACKGROUND, TARGET, TARGET_ARGUMENTS, LATER)
    [negatives] = run("event_negatives", [item], cache)
    assert [n.text for n in negatives] == [
        "The European Commission declared a state of emergency in Paris.",  # subject
        "The French government declared financial aid in Paris.",  # object
        "The French government declared a state of emergency in Madrid.",  # location
    ]
    assert negatives[0].arguments == EventArguments(
        "declare state of emergency", "The European Commission", "a state of emergency", "Paris", ""
    )
    assert negatives[2].arguments.location == "Madrid"


def test_event_negatives_without_a_timeline_negate_then_use_generic_values(cache: LLMCache) -> None:
    resigned = event("The minister resigned.", "2025-05-05")
    arguments = EventArguments("resign", "The minister", "", "", "")
    bare = event("Violence erupted.", "2025-05-06")
    items = [
        event_negatives_item("r", [], resigned, arguments, []),
        event_negatives_item("c", [], bare, EventArguments("", "", "", "", ""), []),
    ]
    first, second = run("event_negatives", items, cache)
    assert [n.text for n in first] == [
        "The minister did not resign.",
        "The government resigned.",
        "The opposition resigned.",
    ]
    assert first[0].arguments.event_type == "not resign"
    assert [n.text for n in second] == [
        "Violence did not erupt.",
        "Officials deny reports that violence erupted.",
        "Plans for the following are dropped: violence erupted.",
    ]


def test_timeline_round_trip_feeds_every_later_task(cache: LLMCache) -> None:
    """Extract -> complement -> reorder -> arguments -> questions, all parsed, on one small story."""
    [extracted] = run("timeline_extract", [timeline_extract_item("x", "Kell", None, WIKI_TEXT, 0)], cache)
    events = list(extracted.events)
    later = timeline_complement_item(
        "y", events, date(2024, 3, 20), "News", "Crews began repairs on the dam.", 0
    )
    [completed] = run("timeline_complement", [later], cache)
    # Inserted after the 15 March 2024 event, before the one of May 2024; the rest kept as they were.
    new = event("Crews began repairs on the dam.", "2024-03-20")
    assert list(completed.events) == [*events[:4], new, *events[4:]]
    [order] = run("timeline_reorder", [timeline_reorder_item("z", "Kell", "", completed.events, 0)], cache)
    ordered = [completed.events[index] for index in order.order]
    assert [e.date.date for e in ordered] == sorted(e.date.date for e in ordered)
    [arguments] = run("event_arguments", [event_arguments_item("a", ordered)], cache)
    assert len(arguments) == len(ordered)
    assert format_timeline(ordered).count("<event>") == len(ordered)


def test_event_negatives_never_reuse_what_the_target_names(cache: LLMCache) -> None:
    # The only timeline candidates are "Paris" (subject) and "the French government" (object), both
    # already in the target: the target negated comes first, then generic subject and object values
    # ("the government" is skipped too: the target names a government).
    later = [event("Paris asked the French government for aid.", "2025-05-10")]
    [negatives] = run(
        "event_negatives", [event_negatives_item("p", [], TARGET, TARGET_ARGUMENTS, later)], cache
    )
    assert [n.text for n in negatives] == [
        "The French government did not declare a state of emergency in Paris.",
        "The opposition declared a state of emergency in Paris.",
        "The French government declared a new proposal in Paris.",
    ]
    assert negatives[0].arguments.event_type == "not declare state of emergency"
