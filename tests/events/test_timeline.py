"""Timelines through the loopback LLM server: extract, complement, reorder, date check, arguments, rejects."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.schemas import table_from_rows
from almanac.events.schema import COMPLEX_EVENT_SCHEMA
from almanac.events.timeline import TimelineConfig, build_timelines
from almanac.llm.cache import LLMCache
from tests.llm.conftest import PROMPTS_DIR, remote_role
from tests.support.llm_server import LLMTestServer, Reply, last_user_message


def document(doc_id: str, day: dt.date | None, marker: str) -> dict[str, Any]:
    return {"doc_id": doc_id, "kind": "wcep_event", "date": day, "title": doc_id, "text": marker, "urls": []}


def complex_events() -> pa.Table:
    rows = [
        {
            "ce_id": "ce-storm",
            "origin": "wcep",
            "title": "Storm Amaris",
            "story_path": ["Storm Amaris"],
            "topic": "Disasters and accidents",
            "first_date": dt.date(2025, 4, 2),
            "last_date": dt.date(2025, 4, 9),
            "documents": [
                document("d0", dt.date(2025, 4, 2), "MARKER-STORM-0"),
                document("d1", dt.date(2025, 4, 5), "MARKER-STORM-1"),
                document("d2", dt.date(2025, 4, 9), "MARKER-STORM-2"),
            ],
            "source": "test",
        },
        {
            "ce_id": "ce-broken",
            "origin": "wcep",
            "title": "Broken",
            "story_path": ["Broken"],
            "topic": "Law and crime",
            "first_date": dt.date(2025, 4, 2),
            "last_date": dt.date(2025, 4, 2),
            "documents": [document("b0", dt.date(2025, 4, 2), "MARKER-BROKEN-0")],
            "source": "test",
        },
        {
            "ce_id": "ce-short",
            "origin": "wcep",
            "title": "Short",
            "story_path": ["Short"],
            "topic": "Law and crime",
            "first_date": dt.date(2025, 4, 2),
            "last_date": dt.date(2025, 4, 2),
            "documents": [document("s0", dt.date(2025, 4, 2), "MARKER-SHORT-0")],
            "source": "test",
        },
    ]
    return table_from_rows(rows, COMPLEX_EVENT_SCHEMA)


def timeline(*events: tuple[str, str]) -> str:
    body = "".join(f"<event><date>{day}</date><text>{text}</text></event>\n" for day, text in events)
    return f"<timeline>\n{body}</timeline>"


WARNING = ("2025-04-02", "Forecasters issued a red warning for Storm Amaris.")
LANDFALL = ("2025-04-04", "Storm Amaris made landfall near Port Alder.")
EVACUATION = ("2025-04-03", "Officials evacuated 2,000 residents of Port Alder.")
# Stated only to the month and given out of order by the model: the date check must move it first.
SEASON = ("2025-03", "The Halden Sea storm season began early.")
CLEANUP = ("2025-04-08", "Volunteers began clearing debris in Port Alder.")
REPORT = ("unknown", "The Estravian weather office published a review of the storm.")


def script(body: dict[str, Any], seen: int) -> Reply:
    del seen
    message = last_user_message(body)
    markers = set(re.findall(r"MARKER-[A-Z]+-\d", message))
    if markers == {"MARKER-STORM-0", "MARKER-STORM-1", "MARKER-STORM-2"}:
        # Reorder: swap the first two (evacuation before the warning is wrong, the date pass fixes it).
        return Reply("<order>2, 1, 3, 4, 5, 6</order>")
    if markers == {"MARKER-STORM-0"}:
        return Reply(timeline(WARNING, LANDFALL))
    if markers == {"MARKER-STORM-1"}:
        return Reply(timeline(WARNING, EVACUATION, LANDFALL, CLEANUP))
    if markers == {"MARKER-STORM-2"}:
        # A repeated event (same words, other case) is dropped; the month-dated event comes last.
        return Reply(
            timeline(
                WARNING, EVACUATION, LANDFALL, CLEANUP, REPORT, SEASON, (LANDFALL[0], LANDFALL[1].upper())
            )
        )
    if markers == {"MARKER-BROKEN-0"} or message.startswith("Your answer could not be read"):
        return Reply("I cannot produce a timeline in tags, sorry.")
    if markers == {"MARKER-SHORT-0"}:
        return Reply(timeline(WARNING))
    numbers = re.findall(r"<number>(\d+)</number>", message)
    blocks = "".join(
        f"<arguments><number>{n}</number><event_type>act {n}</event_type><subject>subject {n}</subject>"
        f"<object>none</object><location>Port Alder</location><time>none</time></arguments>\n"
        for n in numbers
    )
    return Reply(blocks)


def run(server: LLMTestServer, cache_path: Path, **config: Any) -> tuple[pa.Table, Any]:
    role = remote_role(server, name="annotator")
    with LLMCache(cache_path) as cache:
        return build_timelines(
            complex_events(),
            TimelineConfig(**{"min_atomic_events": 3, **config}),
            role,
            cache,
            str(PROMPTS_DIR),
        )


def test_timeline_rounds_reorder_and_rejects(serve: Callable[..., LLMTestServer], tmp_path: Path) -> None:
    server = serve(script)
    table, ledger = run(server, tmp_path / "llm.sqlite", arguments_batch=4)

    assert table.column("ce_id").to_pylist() == ["ce-storm"]
    events = table.column("events").to_pylist()[0]
    texts = [event["text"] for event in events]
    # Month-dated season first (date check), then warning/evacuation/landfall/cleanup by day, and the
    # undated review stays after the event it followed in the model's order (the cleanup).
    assert texts == [SEASON[1], WARNING[1], EVACUATION[1], LANDFALL[1], CLEANUP[1], REPORT[1]]
    assert [event["position"] for event in events] == list(range(6))
    assert events[0]["date_precision"] == "month" and events[0]["day"] is None
    assert events[1]["day"] == dt.date(2025, 4, 2) and events[5]["date_precision"] == "unknown"
    # Provenance: the warning came from the first document, the evacuation from the second.
    assert [event["doc_id"] for event in events[:4]] == ["d2", "d0", "d1", "d0"]
    # Arguments were asked in two batches (4 + 2) and land on the right events.
    assert events[0]["event_type"] == "act 1" and events[5]["subject"] == "subject 2"
    assert events[3]["location"] == "Port Alder" and events[3]["object"] == ""
    assert len({event["event_id"] for event in events}) == 6

    reasons = {reject.id: reject.reason for reject in ledger.rejects}
    assert reasons == {"ce-broken": "llm_malformed_output", "ce-short": "too_few_atomic_events"}
    assert ledger.items_in == 3 and ledger.items_out == 1
    assert ledger.extra["duplicate_events_dropped"] == 1
    assert ledger.extra["events_added_by_complement"] == 4
    assert ledger.extra["events_moved_by_date_check"] > 0

    calls = len(server.chat_bodies)
    again, _ = run(server, tmp_path / "llm.sqlite", arguments_batch=4)
    assert len(server.chat_bodies) == calls, "a rerun must be served from the cache"
    assert again.equals(table)


def test_date_pass_sorts_by_interval_so_a_day_precedes_its_month() -> None:
    from almanac.events.llm_tasks.replies import EventDate, TimelineEvent
    from almanac.events.timeline import _Progress, _sort_by_date

    def dated(text: str, when: str, precision: str) -> TimelineEvent:
        return TimelineEvent(text, EventDate(when, precision))

    state = _Progress({"ce_id": "ce", "documents": []})
    state.events = [
        dated("the month", "2025-05", "month"),
        dated("first of May", "2025-05-01", "day"),
        dated("no date", "unknown", "unknown"),
        dated("the year", "2025", "year"),
    ]
    state.doc_ids = ["a", "b", "c", "d"]
    # Old key (first day only) kept "the month" before "first of May"; a cut on 1 May then found a
    # background event that is not over on 1 May. The undated event carries the key of the event
    # before it (first of May), so it stays right after it; only the month and the year move.
    assert _sort_by_date(state) == 2
    assert [event.text for event in state.events] == ["the year", "first of May", "no date", "the month"]
    assert state.doc_ids == ["d", "b", "c", "a"]
