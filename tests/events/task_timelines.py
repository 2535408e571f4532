"""Hand-built timelines (TIMELINE_SCHEMA) and a scripted annotator for the complex-event task tests."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.schemas import table_from_rows
from almanac.events.cuts import EventTasksConfig, SplitWindows
from almanac.events.samples import SAMPLE_SCHEMAS
from almanac.events.schema import TIMELINE_SCHEMA
from tests.support.llm_server import Reply, last_user_message

# The windows of params.yaml: train to April 2025, validation May, test June-July.
WINDOWS = SplitWindows("2025-04-30", "2025-05-01", "2025-05-31", "2025-06-01", "2025-07-31")
CONFIG = EventTasksConfig(seed=13, cuts_per_event=2, min_background_events=1, split=WINDOWS)
ARGUMENTS = ("event_type", "subject", "object", "location", "time")


def precision(when: str) -> str:
    if when == "unknown":
        return "unknown"
    return {10: "day", 7: "month", 4: "year"}[len(when)]


def event(ce_id: str, position: int, text: str, when: str = "unknown", *args: str) -> dict[str, Any]:
    """An ATOMIC_EVENT_TYPE record; ``args`` are event_type, subject, object, location, time in order."""
    values = dict(zip(ARGUMENTS, (*args, "", "", "", "", "")[:5], strict=True))
    return {
        "event_id": content_id(ce_id, text),
        "position": position,
        "text": text,
        "date": when,
        "date_precision": precision(when),
        "day": date.fromisoformat(when) if precision(when) == "day" else None,
        **values,
        "doc_id": "doc-1",
    }


def timeline(
    ce_id: str,
    specs: list[tuple[Any, ...]],
    origin: str = "wikipedia",
    topic: str = "Politics and elections",
) -> dict[str, Any]:
    """A timeline row; each spec is (text, date, *arguments)."""
    events = [event(ce_id, position, *spec) for position, spec in enumerate(specs)]
    return {
        "ce_id": ce_id,
        "origin": origin,
        "title": f"Story {ce_id}",
        "topic": topic,
        "events": events,
        "n_documents": 1,
        "models": ["test-model"],
    }


def table(rows: list[dict[str, Any]]) -> pa.Table:
    return table_from_rows(rows, TIMELINE_SCHEMA)


# Veloria: two cut days in train (March/April), May in validation, June in test; one undated event sits
# between the two April 12 events, and the timeline runs on past the test start.
VELORIA = timeline(
    "ce-veloria",
    [
        ("Protesters marched through Veloria.", "2025-03-02", "marched", "protesters", "", "Veloria"),
        ("The government declared a curfew.", "2025-03-10", "declared", "the government", "a curfew"),
        ("Talks opened in Geneva.", "2025-04-12", "opened", "negotiators", "talks", "Geneva"),
        ("Delegates met privately.", "unknown", "met", "delegates"),
        ("A ceasefire was signed.", "2025-04-12", "signed", "the parties", "a ceasefire"),
        ("Monitors arrived.", "2025-04", "arrived", "monitors"),
        ("Elections were scheduled.", "2025-05-20", "scheduled", "the commission", "elections"),
        ("Campaigning began nationwide.", "2025-06", "began", "parties", "campaigning"),
        ("Parliament was dissolved.", "2025-06-03", "dissolved", "the president", "parliament"),
        ("Opposition leaders were detained.", "unknown", "detained", "police", "opposition leaders"),
        ("A new government was sworn in.", "2025-07-15", "sworn in", "a new government"),
    ],
)
# Kestrel: the annotator's first negative restates event 0 (always in the background) with other casing.
KESTREL = timeline(
    "ce-kestrel",
    [
        (
            "The Kestrel Port Authority closed the harbour.",
            "2025-02-01",
            "closed",
            "Kestrel Port Authority",
            "the harbour",
            "Kestrel",
        ),
        ("Fishermen blockaded the port.", "2025-02-08", "blockaded", "fishermen", "the port", "Kestrel"),
        ("The mayor met the fishermen.", "2025-02-15", "met", "the mayor", "the fishermen", "Kestrel"),
        ("The harbour reopened.", "2025-02-20", "reopened", "the harbour", "", "Kestrel"),
    ],
    origin="wcep",
    topic="Business and economy",
)
KESTREL_DUPLICATE = ("CLOSED!", "kestrel port authority", "The Harbour.", "KESTREL")


SAMPLE_BACKGROUND = [event("ce-1", 0, "It began.", "2025-03-01", "began", "it")]


def sample(task: str, sample_id: str, split: str, cut: date, **changes: Any) -> dict[str, Any]:
    """A valid sample of ``task`` (every column of its schema), with ``changes`` applied."""
    target = event("ce-1", 1, "It went on.", cut.isoformat(), "went on", "it")
    row: dict[str, Any] = {
        "sample_id": sample_id,
        "task": task,
        "split": split,
        "ce_id": "ce-1",
        "origin": "wikipedia",
        "ce_title": "Story",
        "topic": "Sports",
        "cut_date": cut,
        "background": SAMPLE_BACKGROUND,
        "targets": [target],
        "targets_trimmed": 0,
        "target": target,
        "argument": "subject",
        "question": "Who will go on?",
        "answer": "it",
        "options": ["it", "x", "y", "z"] if task == "mcac" else ["It went on.", "x", "y", "z"],
        "answer_index": 0,
        "answer_label": "A",
        "negatives_discarded": 0,
        "candidate": "It went on.",
        "label": "Yes",
        "mcnc_sample_id": "mcnc-1",
        "model": "m",
        "prompt_version": "1",
    }
    row.update(changes)
    return {name: row[name] for name in SAMPLE_SCHEMAS[task].names}


def annotator(body: dict[str, Any], seen: int) -> Reply:
    """Scripted answers for argument_question and event_negatives, read off the prompt itself."""
    prompt = last_user_message(body)
    if "could not be read" in prompt:  # the repair round: only the Marrow question ever gets there
        return Reply(text="Still no question, sorry.")
    if "Write three false events" in prompt:
        target = re.search(r"^True event \([^)]*\): (.*)$", prompt, re.MULTILINE)
        assert target is not None
        blocks = [
            _negative(f"Instead of it: {target.group(1)} (variant {i})", f"variant {i}") for i in (1, 2, 3)
        ]
        if "Kestrel" in prompt:
            blocks[0] = _negative("The port was shut by its authority.", *KESTREL_DUPLICATE)
        return Reply(text="\n".join(blocks))
    if "Write one question" in prompt:
        if "Marrow" in prompt:
            return Reply(text="I would rather not write a question.")
        found = re.search(r'Ask about the (\w+) of the target event, whose value is "([^"]*)"', prompt)
        assert found is not None
        argument, value = found.groups()
        question = f"What will the {argument.replace('_', ' ')} of the next development be?"
        negatives = "".join(f"<negative>wrong {i} {value}</negative>" for i in (1, 2, 3))
        return Reply(text=f"<question>{question}</question><answer>{value}</answer>{negatives}")
    raise AssertionError(f"unexpected prompt: {prompt[:200]}")


def _negative(
    text: str, event_type: str, subject: str = "someone else", obj: str = "", where: str = ""
) -> str:
    return (
        f"<negative><text>{text}</text><event_type>{event_type}</event_type><subject>{subject}</subject>"
        f"<object>{obj or 'none'}</object><location>{where or 'none'}</location></negative>"
    )
