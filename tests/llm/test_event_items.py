"""Argument and negative parsers, text formats, item builders and prompts of the complex-event tasks."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Any

import pytest

from almanac.core.rejects import StageLedger
from almanac.events.llm_tasks.argument_question import argument_question_item, parse_argument_question
from almanac.events.llm_tasks.article_category import article_category_item
from almanac.events.llm_tasks.event_arguments import event_arguments_item, parse_event_arguments
from almanac.events.llm_tasks.event_negatives import event_negatives_item, parse_event_negatives
from almanac.events.llm_tasks.items import clip, target_argument_value
from almanac.events.llm_tasks.occurrence_date import occurrence_date_item
from almanac.events.llm_tasks.replies import (
    ArgumentQuestion,
    EventArguments,
    NegativeEvent,
    TimelineOrder,
    format_arguments,
    read_arguments,
)
from almanac.events.llm_tasks.timeline_complement import timeline_complement_item
from almanac.events.llm_tasks.timeline_extract import timeline_extract_item
from almanac.events.llm_tasks.timeline_reorder import timeline_reorder_item
from almanac.events.llm_tasks.timelines import format_timeline, read_timeline
from almanac.llm.cache import LLMCache
from almanac.llm.parsing import ParseError
from almanac.llm.prompts import load_prompt
from almanac.llm.registry import TaskItem, registered
from almanac.llm.tasks import run_task
from tests.llm.conftest import PROMPTS_DIR, remote_role
from tests.llm.event_examples import EVACUATION, FLOOD, INQUIRY
from tests.support.llm_server import LLMTestServer, Reply

Serve = Callable[..., LLMTestServer]
FLOOD_ARGUMENTS = EventArguments("burst its banks", "The Sava river", "", "Veloria", "4 March 2025")


# -- open event extraction -------------------------------------------------------------------------


def arguments_block(number: str, event_type: str, subject: str, obj: str, location: str, time: str) -> str:
    return (
        f"<arguments><number>{number}</number><event_type>{event_type}</event_type><subject>{subject}</subject>"
        f"<object>{obj}</object><location>{location}</location><time>{time}</time></arguments>"
    )


def test_event_arguments_are_returned_in_number_order() -> None:
    text = "\n".join(
        [
            arguments_block("2", "ordered", "Veloria", "4,000 residents to leave", "Veloria", "March 2025"),
            arguments_block("1.", "burst its banks", "The Sava river", "none", "Veloria", "4 March 2025"),
        ]
    )
    assert parse_event_arguments(text, {"n_events": "2"}) == (
        FLOOD_ARGUMENTS,
        EventArguments("ordered", "Veloria", "4,000 residents to leave", "Veloria", "March 2025"),
    )
    blank = arguments_block("1", "opened", "Parliament", "an inquiry", "N/A", "")
    assert parse_event_arguments(blank, {"n_events": "1"}) == (
        EventArguments("opened", "Parliament", "an inquiry", "", ""),
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("The subject is the river.", "no <arguments>"),
        (arguments_block("1", "a", "b", "c", "d", "e"), r"no <arguments> block for event\(s\) 2"),
        (arguments_block("3", "a", "b", "c", "d", "e"), "<number> 3 is not an event number"),
        (arguments_block("first", "a", "b", "c", "d", "e"), "<number> must be an event number"),
        (
            arguments_block("1", "a", "b", "c", "d", "e").replace("<object>c</object>", "")
            + arguments_block("2", "a", "b", "c", "d", "e"),
            r"block 1 \(event 1\): missing <object>",
        ),
        (
            arguments_block("1", "a", "b", "c", "d", "e") + arguments_block("1", "x", "b", "c", "d", "e"),
            "event 1 has two different <arguments> blocks",
        ),
    ],
)
def test_event_arguments_errors(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parse_event_arguments(text, {"n_events": "2"})


# -- argument questions and negative events --------------------------------------------------------

GOOD_QUESTION = (
    "<question>Where will the Sava river burst its banks on 4 March 2025?</question>\n"
    "<answer>Veloria</answer>\n<negative>Brenna</negative>\n<negative>Osk</negative>\n<negative>Tamar</negative>"
)


def test_argument_question() -> None:
    assert parse_argument_question(GOOD_QUESTION, {}) == ArgumentQuestion(
        "Where will the Sava river burst its banks on 4 March 2025?", "Veloria", ("Brenna", "Osk", "Tamar")
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("Where will the", "In which town will the", "must start with Who, What"),
        ("Where will the", "Where did the", "with 'will'"),
        ("2025?</question>", "2025.</question>", "must end with a question mark"),
        ("<answer>Veloria</answer>", "<answer>none</answer>", "<answer> must hold the true value"),
        ("<answer>Veloria</answer>", "", "missing <answer>"),
        ("Sava river", "Sava river in Veloria", "gives its answer away"),
        ("<negative>Tamar</negative>", "", "exactly three <negative> answers, got 2"),
        ("<negative>Tamar</negative>", "<negative>Tamar</negative><negative>Lod</negative>", "got 4"),
        ("<negative>Tamar</negative>", "<negative>osk.</negative>", "negatives 2 and 3 are the same"),
        ("<negative>Osk</negative>", "<negative>VELORIA</negative>", "negative 2 repeats the true answer"),
        ("<negative>Osk</negative>", "<negative>N/A</negative>", "negative 2 is empty"),
    ],
)
def test_argument_question_errors(old: str, new: str, message: str) -> None:
    assert old in GOOD_QUESTION
    with pytest.raises(ParseError, match=message):
        parse_argument_question(GOOD_QUESTION.replace(old, new), {})


def negatives_variables() -> dict[str, str]:
    item = event_negatives_item("s1", [EVACUATION], FLOOD, FLOOD_ARGUMENTS, [INQUIRY])
    return dict(item.variables)


def negative_block(text: str, event_type: str, subject: str, obj: str, location: str) -> str:
    return (
        f"<negative><text>{text}</text><event_type>{event_type}</event_type><subject>{subject}</subject>"
        f"<object>{obj}</object><location>{location}</location></negative>"
    )


GOOD_NEGATIVES = [
    ("The Sava river burst its banks in Brenna.", "burst its banks", "The Sava river", "none", "Brenna"),
    ("The Drava river burst its banks in Veloria.", "burst its banks", "The Drava river", "none", "Veloria"),
    (
        "The Sava river fell to a record low in Veloria.",
        "fell to a record low",
        "The Sava river",
        "",
        "Veloria",
    ),
]


def test_event_negatives_inherit_the_target_time() -> None:
    text = "\n".join(negative_block(*fields) for fields in GOOD_NEGATIVES)
    negatives = parse_event_negatives(text, negatives_variables())
    assert negatives[0] == NegativeEvent(
        "The Sava river burst its banks in Brenna.",
        EventArguments("burst its banks", "The Sava river", "", "Brenna", "4 March 2025"),
    )
    assert [negative.arguments.time for negative in negatives] == ["4 March 2025"] * 3
    assert negatives[2].arguments.event_type == "fell to a record low"


@pytest.mark.parametrize(
    ("replacement", "message"),
    [
        (None, "exactly three <negative> blocks, got 2"),
        (
            ("the Sava river burst its banks in Veloria", "flooded", "The Sava river", "none", "Veloria"),
            "negative 3 repeats the true event",
        ),
        (GOOD_NEGATIVES[0], "negatives 1 and 3 are the same"),
        (
            (
                "The Sava burst its banks in Veloria again.",
                "burst its banks",
                "the Sava river",
                "none",
                "Veloria",
            ),
            "negative 3 keeps the true event's type, subject, object and location",
        ),
    ],
)
def test_event_negatives_errors(replacement: tuple[str, ...] | None, message: str) -> None:
    blocks = [negative_block(*fields) for fields in GOOD_NEGATIVES[:2]]
    if replacement is not None:
        blocks.append(negative_block(*replacement))
    with pytest.raises(ParseError, match=message):
        parse_event_negatives("\n".join(blocks), negatives_variables())


def test_event_negatives_missing_tag_names_the_block() -> None:
    blocks = [negative_block(*fields) for fields in GOOD_NEGATIVES]
    blocks[1] = blocks[1].replace("<subject>The Drava river</subject>", "")
    with pytest.raises(ParseError, match="negative 2: missing <subject>"):
        parse_event_negatives("".join(blocks), negatives_variables())


# -- text formats and builders -----------------------------------------------------------------------


def test_timeline_format_round_trip() -> None:
    text = format_timeline([FLOOD, EVACUATION, INQUIRY])
    assert text.splitlines()[1] == (
        "<event><number>2</number><date>2025-03</date><text>Veloria ordered 4,000 residents to leave.</text></event>"
    )
    assert read_timeline(text) == [FLOOD, EVACUATION, INQUIRY]
    assert format_timeline([]) == "(no events yet)" and read_timeline("(no events yet)") == []
    with pytest.raises(ParseError):
        read_timeline("1. The river rose.")


def test_arguments_format_round_trip() -> None:
    text = format_arguments(FLOOD_ARGUMENTS)
    assert text.splitlines() == [
        "event_type: burst its banks",
        "subject: The Sava river",
        "object: none",
        "location: Veloria",
        "time: 4 March 2025",
    ]
    assert read_arguments(text) == FLOOD_ARGUMENTS
    with pytest.raises(ParseError, match="lack the line"):
        read_arguments("\n".join(text.splitlines()[:4]))
    with pytest.raises(ParseError, match="'name: value'"):
        read_arguments(text + "\ncause: rain")


def test_clip_cuts_at_a_word_boundary() -> None:
    assert clip("the river burst its banks", 14) == "the river ..."
    assert clip("the river burst its banks", 0) == "the river burst its banks"
    assert clip("short", 14) == "short"


def test_argument_value_falls_back_to_the_date_for_time_only() -> None:
    no_time = EventArguments("burst its banks", "The Sava river", "", "Veloria", "")
    assert target_argument_value(FLOOD, no_time, "time") == "2025-03-04"
    assert target_argument_value(FLOOD, no_time, "object") == ""
    with pytest.raises(ValueError, match="no 'object' argument"):
        argument_question_item("s1", [], FLOOD, no_time, "object", [])
    with pytest.raises(ValueError, match="unknown argument"):
        target_argument_value(FLOOD, no_time, "cause")


def all_items() -> dict[str, TaskItem]:
    events = [FLOOD, EVACUATION]
    return {
        "article_category": article_category_item("a", "2025 Sava floods", "The Sava flooded.", 100),
        "occurrence_date": occurrence_date_item("a", "2025 Sava floods", "The Sava flooded.", 100),
        "timeline_extract": timeline_extract_item("a", "Floods", date(2025, 3, 5), "The Sava flooded.", 100),
        "timeline_complement": timeline_complement_item("a", events, None, "Inquiry", "MPs met.", 100),
        "timeline_reorder": timeline_reorder_item("a", "Floods", "The Sava flooded.", events, 100),
        "event_arguments": event_arguments_item("a", events),
        "argument_question": argument_question_item(
            "a", [EVACUATION], FLOOD, FLOOD_ARGUMENTS, "location", []
        ),
        "event_negatives": event_negatives_item("a", [], FLOOD, FLOOD_ARGUMENTS, [INQUIRY]),
    }


def test_every_event_prompt_renders_from_its_builder() -> None:
    for task, item in all_items().items():
        assert task in registered()
        template = load_prompt(task, PROMPTS_DIR)
        assert template.version == "1"
        rendered = "\n".join(text for _, text in template.render(item.variables))  # fails on unused variables
        assert "{{" not in rendered and "}}" not in rendered, task
        for value in item.variables.values():
            assert value in rendered, (task, value)


def test_builders_fill_the_contract_variables() -> None:
    items = all_items()
    assert items["timeline_extract"].variables["document_date"] == "2025-03-05"
    assert items["timeline_complement"].variables["news_date"] == "unknown"
    assert items["timeline_complement"].variables["n_events"] == "2"
    aqa = items["argument_question"].variables
    assert (aqa["argument"], aqa["argument_value"], aqa["target_date"]) == (
        "location",
        "Veloria",
        "2025-03-04",
    )
    assert read_timeline(aqa["background"]) == [EVACUATION]
    assert read_arguments(items["event_negatives"].variables["target_arguments"]) == FLOOD_ARGUMENTS


# -- through run_task and the loopback server ----------------------------------------------------------


def test_run_task_repairs_bad_order_and_bad_negatives(serve: Serve, cache: LLMCache) -> None:
    def script(body: dict[str, Any], seen: int) -> Reply:
        repairing = any(message["role"] == "assistant" for message in body["messages"])
        prompt = body["messages"][1]["content"]
        if "<order>" in prompt:
            return Reply(text="<order>2, 3, 1</order>" if repairing else "<order>2, 2, 1</order>")
        blocks = [negative_block(*fields) for fields in GOOD_NEGATIVES]
        return Reply(text="\n".join(blocks if repairing else blocks[:2]))

    server = serve(script)
    role = remote_role(server, name="annotator")
    ledger = StageLedger("event_timeline")
    reorder = timeline_reorder_item("ce1:reorder", "Floods", "sources", [FLOOD, EVACUATION, INQUIRY], 0)
    [order] = run_task(role, "timeline_reorder", [reorder], cache, ledger, PROMPTS_DIR)
    assert order.ok and order.repaired and order.value == TimelineOrder((1, 2, 0))
    repair_prompt = server.chat_bodies[1]["messages"][-1]["content"]
    assert "repeated: 2; missing: 3" in repair_prompt

    item = event_negatives_item("s1", [EVACUATION], FLOOD, FLOOD_ARGUMENTS, [INQUIRY])
    [negatives] = run_task(role, "event_negatives", [item], cache, ledger, PROMPTS_DIR)
    assert negatives.ok and negatives.repaired and negatives.value is not None
    assert [negative.text for negative in negatives.value] == [fields[0] for fields in GOOD_NEGATIVES]
    assert "exactly three <negative> blocks, got 2" in server.chat_bodies[3]["messages"][-1]["content"]
    assert server.chat_requests == 4
    assert ledger.extra["llm"]["annotator.repaired"] == 2
