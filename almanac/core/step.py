"""One keep-or-reject step: records in, kept records out, and a reject row with a reason for each other one.

Every filter and transform of the pipeline has the same loop: count the record in, decide, then either
keep the (possibly rewritten) record or file a reject row with a reason. Written by hand each time, the
counting drifted (``items_in`` set up front here, ``items_out = len(kept)`` there); written once here,
``items_in == items_out + rejected`` holds by construction for the records a step sees.

A step's decision is a plain function that returns the kept value or a :class:`Drop`; the id and the
source of the reject row come from the step's getters, so the decision says only *why*.

Three counting rules live here and nowhere else:
- a record is counted in once per stage: a later step of the same stage (``chained=True``) takes its
  records from the previous step's output, so it moves them back out of ``items_out`` instead of
  counting them in again;
- a group rule (one survivor per group, or a group refused whole) is a record-level step whose decision
  is worked out per group first (:class:`GroupStep`); the losers' reject rows name the survivor;
- a step that yields new items from a record (questions from an article) counts the records and
  writes how many items they yielded under the recipe's ``produces`` key (:func:`apply_producing_step`);
- records a vectorised pass keeps wholesale count in and out at once (:func:`keep_whole`), and a
  rule run over a whole table hands its rejects over as a table (:func:`table_step`);
- records folded into fewer groups are replaced by the groups in the counts (:func:`fold_into`);
- a record that fans out into several items (an event into its source URLs) counts each item once, and
  a record with no item counts as one item, rejected (:func:`fan_out`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

import pyarrow as pa

from almanac.core.progress import progress
from almanac.core.rejects import StageLedger, TableLedger

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
    records: Iterable[R],
    step: Step[R, T],
    ledger: StageLedger,
    desc: str | None = None,
    *,
    chained: bool = False,
) -> list[T]:
    """Run ``step`` over ``records`` in order: each record is counted in, then kept or rejected.

    ``chained``: the records are the kept output of an earlier step on the same ledger (already
    counted in), so each is taken back out of ``items_out`` instead. A progress bar (``desc``, default
    the stage name) counts the records while a TTY watches.
    """
    kept: list[T] = []
    for record in progress(records, desc=desc or ledger.stage, unit="record"):
        if chained:
            ledger.items_out -= 1
        else:
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


def apply_producing_step(
    records: Iterable[R],
    step: Step[R, list[T]],
    ledger: StageLedger,
    produced_key: str,
    desc: str | None = None,
) -> list[T]:
    """A step whose kept value is the list of new items a record yields (qgen: an article's questions).

    The record stays the unit counted in, out or rejected; the items it yields are counted here, in
    ``ledger.extra[produced_key]``, which the funnel reads as the step's count (the recipe's
    ``produces``), so the next step's items_in chains to it.
    """
    items = [item for kept in apply_step(records, step, ledger, desc) for item in kept]
    ledger.extra[produced_key] = ledger.extra.get(produced_key, 0) + len(items)
    return items


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


def keep_whole(ledger: StageLedger, count: int) -> None:
    """``count`` records a vectorised pass kept without a decision each (Arrow typed a whole file):
    counted in and out as a step that keeps each would count them."""
    ledger.items_in += count
    ledger.items_out += count


def table_step(ledger: TableLedger, kept: int, rejected: pa.Table) -> None:
    """A rule run over a whole table at once (GDELT's rules in DuckDB): ``kept`` rows handed on and one
    reject row per row of ``rejected`` (REJECT_SCHEMA columns), counted as a per-row step would be."""
    keep_whole(ledger, kept)
    ledger.items_in += rejected.num_rows
    ledger.reject_table(rejected)


def fold_into(ledger: StageLedger, folded: int, groups: int) -> None:
    """``folded`` kept records merged into ``groups`` items (MIRAI's valid quads into day-pair groups):
    from here on the unit of account is the group, so the groups replace the records in both counts."""
    ledger.items_in += groups - folded
    ledger.items_out += groups - folded


KEEP_ALL = -1
"""What :attr:`GroupStep.choose` returns for a group that passes whole."""


@dataclass(frozen=True)
class GroupStep(Generic[R]):
    """A rule over groups of records: each group keeps one survivor, passes whole, or is refused whole.

    ``choose`` sees a group's members in input order and returns the survivor's position among them,
    :data:`KEEP_ALL`, or a :class:`Drop` for every member. ``outranked(loser, survivor)`` says why a
    member lost; its reject row names the survivor as ``related_id`` unless the Drop names another or
    ``names_survivor`` is off (a repeat of the same id, where the survivor's id is the loser's own).
    """

    group_key: Callable[[R], Hashable]
    choose: Callable[[Sequence[R]], int | Drop]
    outranked: Callable[[R, R], Drop]
    item_id: Callable[[R], str]
    source: Callable[[R], str]
    names_survivor: bool = True


def apply_group_step(
    records: Iterable[R],
    step: GroupStep[R],
    ledger: StageLedger,
    desc: str | None = None,
    *,
    chained: bool = False,
) -> list[R]:
    """Group ``records``, decide each group once, then run the decisions as one record-level step.

    Kept records come out in input order (not group order), so a group rule never reorders a table.
    """
    listed = list(records)
    members: dict[Hashable, list[int]] = {}
    for position, record in enumerate(listed):
        members.setdefault(step.group_key(record), []).append(position)
    verdict: dict[int, int | Drop] = {}  # position -> KEEP_ALL, its survivor's position, or a Drop
    for positions in members.values():
        choice = step.choose([listed[position] for position in positions])
        for position in positions:
            verdict[position] = (
                choice if isinstance(choice, Drop) or choice == KEEP_ALL else positions[choice]
            )

    def decide(entry: tuple[int, R]) -> R | Drop:
        position, record = entry
        outcome = verdict[position]
        if isinstance(outcome, Drop):
            return outcome
        if outcome in (KEEP_ALL, position):
            return record
        survivor = listed[outcome]
        why = step.outranked(record, survivor)
        if why.related_id is not None or not step.names_survivor:
            return why
        return replace(why, related_id=step.item_id(survivor))

    numbered = Step(decide, lambda entry: step.item_id(entry[1]), lambda entry: step.source(entry[1]))
    return apply_step(enumerate(listed), numbered, ledger, desc, chained=chained)


def first_survives(
    group_key: Callable[[R], Hashable],
    outranked: Callable[[R, R], Drop],
    item_id: Callable[[R], str],
    source: Callable[[R], str],
    *,
    names_survivor: bool = True,
) -> GroupStep[R]:
    """The commonest group rule: the first record of each group (in input order) is kept."""
    return GroupStep(group_key, lambda _members: 0, outranked, item_id, source, names_survivor)


def fan_out(
    records: Iterable[R],
    expand: Callable[[R], Sequence[T] | Drop],
    ledger: StageLedger,
    item_id: Callable[[R], str],
    source: Callable[[R], str],
) -> list[T]:
    """The items ``records`` expand into (an event into its source URLs), counted in and handed on.

    The counting rule of every one-to-many step: each item counts as one in (and out, to the next step,
    which takes it with ``chained=True``); a record that expands into nothing counts as one item and is
    rejected with ``expand``'s Drop, so no record vanishes from the funnel.
    """
    items: list[T] = []
    unexpanded: Step[tuple[R, Drop], object] = Step(_second, of_first(item_id), of_first(source))
    for record in records:
        expanded = expand(record)
        if isinstance(expanded, Drop):
            apply_step([(record, expanded)], unexpanded, ledger)
            continue
        ledger.items_in += len(expanded)
        ledger.items_out += len(expanded)
        items.extend(expanded)
    return items


def _second(pair: tuple[R, Drop]) -> Drop:
    return pair[1]
