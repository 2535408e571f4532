"""Event timelines by extraction-then-complement, re-ordering and open event extraction (OpenForecast 4.2).

For each complex event the documents are read in date order: the first one that holds any event is
*extracted* into a timeline, and every later one *complements* it (new key events only, existing
wording kept). Complex events advance in lock-step rounds, so each round is one batch of concurrent
LLM calls however many complex events there are. A re-ordering pass checks the order against the
sources, a deterministic pass then makes the dated events non-decreasing (so a background never holds
an event dated after a target), and one open-event-extraction pass per batch of events adds the
arguments. A complex event is an item: it is kept with at least ``min_atomic_events`` events, or
rejected with the reason of the first LLM call that failed for it.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.rejects import StageLedger
from almanac.core.schemas import table_from_rows
from almanac.core.step import Drop, Step, apply_step
from almanac.core.text import fold
from almanac.events.llm_tasks.event_arguments import EVENT_ARGUMENTS, event_arguments_item
from almanac.events.llm_tasks.replies import EventArguments, EventDate, Timeline, TimelineEvent, TimelineOrder
from almanac.events.llm_tasks.timeline_complement import TIMELINE_COMPLEMENT, timeline_complement_item
from almanac.events.llm_tasks.timeline_extract import TIMELINE_EXTRACT, timeline_extract_item
from almanac.events.llm_tasks.timeline_reorder import TIMELINE_REORDER, timeline_reorder_item
from almanac.events.schema import TIMELINE_SCHEMA
from almanac.llm.cache import LLMCache
from almanac.llm.config import RoleConfig
from almanac.llm.registry import Task, TaskItem
from almanac.llm.tasks import TaskResult, run_task

STAGE = "event_timeline"
Runner = Callable[[Task[..., Any], list[TaskItem]], list[TaskResult[Any]]]


@dataclass(frozen=True)
class TimelineConfig:
    role: str = "annotator"
    max_document_chars: int = 12000
    max_sources_chars: int = 24000  # all documents, shown to the re-ordering pass
    arguments_batch: int = 30  # atomic events per open-event-extraction call
    min_atomic_events: int = 5

    def __post_init__(self) -> None:
        if self.arguments_batch < 1 or self.min_atomic_events < 1:
            raise ValueError("event_timeline: arguments_batch and min_atomic_events must be >= 1")


@dataclass
class _Progress:
    """One complex event on its way through the rounds."""

    complex_event: dict[str, Any]
    events: list[TimelineEvent] = field(default_factory=list)
    doc_ids: list[str] = field(default_factory=list)  # the document each event first came from
    arguments: list[EventArguments] = field(default_factory=list)
    next_doc: int = 0
    models: set[str] = field(default_factory=set)
    failure: TaskResult[Any] | None = None

    @property
    def documents(self) -> list[dict[str, Any]]:
        docs: list[dict[str, Any]] = self.complex_event["documents"]
        return docs

    @property
    def ce_id(self) -> str:
        return str(self.complex_event["ce_id"])


def build_timelines(
    complex_events: pa.Table, config: TimelineConfig, role: RoleConfig, cache: LLMCache, prompts_dir: str
) -> tuple[pa.Table, StageLedger]:
    ledger = StageLedger(STAGE)
    progress = [_Progress(row) for row in complex_events.to_pylist()]

    def run(task: Task[..., Any], items: list[TaskItem]) -> list[TaskResult[Any]]:
        return run_task(role, task, items, cache, ledger, prompts_dir)

    _read_documents(progress, config, run, ledger)
    _reorder(progress, config, run, ledger)
    _extract_arguments(progress, config, run)

    def finished(state: _Progress) -> dict[str, Any] | Drop:
        if state.failure is not None:
            return state.failure.failure()
        if len(state.events) < config.min_atomic_events:
            detail = f"{len(state.events)} atomic events < {config.min_atomic_events}"
            return Drop("too_few_atomic_events", detail)
        ledger.count("atomic_events_per_complex_event", str(len(state.events)))
        return _timeline_row(state)

    step = Step(finished, _ce_id, lambda state: f"complex_event:{state.ce_id}")
    rows = apply_step(sorted(progress, key=_ce_id), step, ledger)
    ledger.extra["atomic_events"] = sum(len(row["events"]) for row in rows)
    return table_from_rows(rows, TIMELINE_SCHEMA), ledger


def _ce_id(state: _Progress) -> str:
    return state.ce_id


def _read_documents(
    progress: list[_Progress], config: TimelineConfig, run: Runner, ledger: StageLedger
) -> None:
    """Extract from the first document that yields events, then complement with each later one."""
    active = [state for state in progress if state.documents]
    while active:
        extract, complement = [], []
        for state in active:
            document = state.documents[state.next_doc]
            item_id = f"{state.ce_id}:doc:{state.next_doc}"
            if state.events:
                complement.append(
                    timeline_complement_item(
                        item_id,
                        state.events,
                        document["date"],
                        document["title"],
                        document["text"],
                        config.max_document_chars,
                    )
                )
            else:
                extract.append(
                    timeline_extract_item(
                        item_id,
                        document["title"],
                        document["date"],
                        document["text"],
                        config.max_document_chars,
                    )
                )
        by_id = {state.ce_id: state for state in active}
        for task, items in ((TIMELINE_EXTRACT, extract), (TIMELINE_COMPLEMENT, complement)):
            if not items:
                continue
            for result in run(task, items):
                state = by_id[result.item_id.split(":doc:")[0]]
                _absorb(state, result, ledger)
        for state in active:
            state.next_doc += 1
        active = [
            state for state in active if state.failure is None and state.next_doc < len(state.documents)
        ]


def _absorb(state: _Progress, result: TaskResult[Any], ledger: StageLedger) -> None:
    if not result.ok:
        state.failure = result
        return
    state.models.add(result.model)
    timeline = result.value
    assert isinstance(timeline, Timeline)
    doc_id = str(state.documents[state.next_doc]["doc_id"])
    known = {fold(event.text): doc for event, doc in zip(state.events, state.doc_ids, strict=True)}
    seen: set[str] = set()
    events, doc_ids = [], []
    for event in timeline.events:
        key = fold(event.text)
        if key in seen:
            _add(ledger, "duplicate_events_dropped", 1)
            continue
        seen.add(key)
        events.append(event)
        doc_ids.append(known.get(key, doc_id))
    _add(
        ledger, "events_added_by_complement" if state.events else "events_extracted", len(events) - len(known)
    )
    state.events, state.doc_ids = events, doc_ids


def _add(ledger: StageLedger, key: str, amount: int) -> None:
    ledger.extra[key] = ledger.extra.get(key, 0) + amount


def _reorder(progress: list[_Progress], config: TimelineConfig, run: Runner, ledger: StageLedger) -> None:
    candidates = [state for state in progress if state.failure is None and len(state.events) > 1]
    items = [
        timeline_reorder_item(
            f"{state.ce_id}:reorder",
            str(state.complex_event["title"]),
            _sources_text(state.documents),
            state.events,
            config.max_sources_chars,
        )
        for state in candidates
    ]
    moved_by_model = moved_by_date = 0
    for state, result in zip(candidates, run(TIMELINE_REORDER, items) if items else [], strict=True):
        if not result.ok:
            state.failure = result
            continue
        state.models.add(result.model)
        order = result.value
        assert isinstance(order, TimelineOrder)
        moved_by_model += sum(1 for position, old in enumerate(order.order) if position != old)
        state.events = [state.events[old] for old in order.order]
        state.doc_ids = [state.doc_ids[old] for old in order.order]
    for state in progress:
        if state.failure is None:
            moved_by_date += _sort_by_date(state)
    ledger.extra["events_moved_by_reorder"] = moved_by_model
    ledger.extra["events_moved_by_date_check"] = moved_by_date


def _sort_by_date(state: _Progress) -> int:
    """Stable sort by date interval (first day, then last day); an undated event keeps its predecessor's.

    Models sometimes leave a dated event after a later one. A cut checks that the timeline's order
    agrees with its dates; after this pass it does, so every event ending before a day comes before
    the first event on that day, and a day sorts before the month or year that starts on it.
    """
    keys: list[tuple[dt.date, dt.date]] = []
    last = (dt.date.min, dt.date.min)
    for event in state.events:
        start = earliest_day(event.date)
        last = (start, latest_day(event.date)) if start is not None else last
        keys.append(last)
    order = sorted(range(len(state.events)), key=lambda index: keys[index])
    state.events = [state.events[index] for index in order]
    state.doc_ids = [state.doc_ids[index] for index in order]
    return sum(1 for position, old in enumerate(order) if position != old)


def latest_day(date: EventDate) -> dt.date:
    """The last day a dated (day, month or year) event's date can mean."""
    if date.precision == "day":
        return dt.date.fromisoformat(date.date)
    if date.precision == "month":
        year, month = int(date.date[:4]), int(date.date[5:7])
        return dt.date(year, month, calendar.monthrange(year, month)[1])
    return dt.date(int(date.date), 12, 31)


def earliest_day(date: EventDate) -> dt.date | None:
    if date.precision == "day":
        return dt.date.fromisoformat(date.date)
    if date.precision == "month":
        return dt.date.fromisoformat(f"{date.date}-01")
    if date.precision == "year":
        return dt.date(int(date.date), 1, 1)
    return None


def _extract_arguments(progress: list[_Progress], config: TimelineConfig, run: Runner) -> None:
    items, owners = [], []
    for state in progress:
        if state.failure is not None or len(state.events) < config.min_atomic_events:
            continue  # arguments of a timeline that is dropped anyway would be wasted calls
        for start in range(0, len(state.events), config.arguments_batch):
            batch = state.events[start : start + config.arguments_batch]
            items.append(event_arguments_item(f"{state.ce_id}:arguments:{start}", batch))
            owners.append(state)
    for state, result in zip(owners, run(EVENT_ARGUMENTS, items) if items else [], strict=True):
        if state.failure is not None:
            continue
        if not result.ok:
            state.failure = result
            continue
        state.models.add(result.model)
        arguments = result.value
        assert isinstance(arguments, tuple)
        state.arguments.extend(arguments)


def _sources_text(documents: Sequence[dict[str, Any]]) -> str:
    parts = []
    for document in documents:
        when = document["date"].isoformat() if document["date"] else "undated"
        parts.append(f"{document['title']} ({when})\n{document['text']}")
    return "\n\n".join(parts)


def _timeline_row(state: _Progress) -> dict[str, Any]:
    events = []
    for position, (event, doc_id, arguments) in enumerate(
        zip(state.events, state.doc_ids, state.arguments, strict=True)
    ):
        events.append(
            {
                "event_id": content_id(state.ce_id, event.text),
                "position": position,
                "text": event.text,
                "date": event.date.date,
                "date_precision": event.date.precision,
                "day": dt.date.fromisoformat(event.date.date) if event.date.precision == "day" else None,
                "event_type": arguments.event_type,
                "subject": arguments.subject,
                "object": arguments.object,
                "location": arguments.location,
                "time": arguments.time,
                "doc_id": doc_id,
            }
        )
    complex_event = state.complex_event
    return {
        "ce_id": state.ce_id,
        "origin": complex_event["origin"],
        "title": complex_event["title"],
        "topic": complex_event["topic"],
        "events": events,
        "n_documents": len(state.documents),
        "models": sorted(state.models),
    }
