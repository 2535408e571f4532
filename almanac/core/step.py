"""One keep-or-reject step: records in, kept records out, and a reject row with a reason for each other one.

Every filter and transform of the pipeline has the same loop: count the record in, decide, then either
keep the (possibly rewritten) record or file a reject row with a reason. Written by hand each time, the
counting drifted (``items_in`` set up front here, ``items_out = len(kept)`` there); written once here,
``items_in == items_out + rejected`` holds by construction for the records a step sees.

A step's decision is a plain function that returns the kept value or a :class:`Drop`; the id and the
source of the reject row come from the step's getters, so the decision says only *why*.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Generic, TypeVar

from almanac.core.progress import progress
from almanac.core.rejects import StageLedger

R = TypeVar("R")
T = TypeVar("T")


@dataclass(frozen=True)
class Drop:
    """Why a record is not kept. ``item_id`` / ``source`` override the step's getters for the odd
    record whose reject row is filed under another id (e.g. an unreadable record has no URL yet)."""

    reason: str
    detail: str
    related_id: str | None = None
    item_id: str | None = None
    source: str | None = None


@dataclass(frozen=True)
class Step(Generic[R, T]):
    """``decide`` maps a record to what is kept of it, or to a :class:`Drop`."""

    decide: Callable[[R], T | Drop]
    item_id: Callable[[R], str]
    source: Callable[[R], str]


def apply_step(
    records: Iterable[R], step: Step[R, T], ledger: StageLedger, desc: str | None = None
) -> list[T]:
    """Run ``step`` over ``records`` in order: each record is counted in, then kept or rejected.

    A progress bar (``desc``, default the stage name) counts the records while a TTY watches.
    """
    kept: list[T] = []
    for record in progress(records, desc=desc or ledger.stage, unit="record"):
        ledger.items_in += 1
        outcome = step.decide(record)
        if isinstance(outcome, Drop):
            ledger.reject(
                step.item_id(record) if outcome.item_id is None else outcome.item_id,
                outcome.reason,
                outcome.detail,
                step.source(record) if outcome.source is None else outcome.source,
                outcome.related_id,
            )
        else:
            kept.append(outcome)
            ledger.items_out += 1
    return kept


def of_first(getter: Callable[[R], str]) -> Callable[[tuple[R, object]], str]:
    """A getter for ``(record, extra)`` pairs (e.g. a row zipped with its LLM result) from one for records."""
    return lambda pair: getter(pair[0])


def filter_step(
    check: Callable[[R], Drop | None], item_id: Callable[[R], str], source: Callable[[R], str]
) -> Step[R, R]:
    """A step that keeps records unchanged: ``check`` returns None to keep, a :class:`Drop` to reject."""

    def decide(record: R) -> R | Drop:
        verdict = check(record)
        return record if verdict is None else verdict

    return Step(decide, item_id, source)


def apply_filter(
    records: Iterable[R],
    check: Callable[[R], Drop | None],
    ledger: StageLedger,
    item_id: Callable[[R], str],
    source: Callable[[R], str],
) -> list[R]:
    """:func:`apply_step` with :func:`filter_step`: the records that pass ``check``, unchanged."""
    return apply_step(records, filter_step(check, item_id, source), ledger)
