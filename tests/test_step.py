"""The one keep-or-reject loop: counts, reject rows (id, source, override, related id) and order."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from almanac.core.rejects import Reject, StageLedger, TableLedger
from almanac.core.schemas import REJECT_SCHEMA, table_from_rows
from almanac.core.step import (
    KEEP_ALL,
    Drop,
    GroupStep,
    Step,
    apply_filter,
    apply_group_step,
    apply_producing_step,
    apply_step,
    fan_out,
    filter_step,
    first_survives,
    fold_into,
    keep_whole,
    of_first,
    table_step,
)


def _ledger() -> StageLedger:
    return StageLedger("demo")


def _check_even(value: int) -> Drop | None:
    return None if value % 2 == 0 else Drop("odd", f"{value} is odd")


def test_filter_keeps_passing_records_in_order_and_counts_every_record() -> None:
    ledger = _ledger()
    kept = apply_filter([4, 1, 2, 3, 6], _check_even, ledger, lambda v: f"id{v}", lambda v: f"src{v}")
    assert kept == [4, 2, 6]
    assert (ledger.items_in, ledger.items_out, ledger.rejected) == (5, 3, 2)
    assert ledger.rejects == [
        Reject("id1", "demo", "odd", "1 is odd", "src1"),
        Reject("id3", "demo", "odd", "3 is odd", "src3"),
    ]
    ledger.check_balance()


def test_step_keeps_the_transformed_value_and_files_drops_with_overrides() -> None:
    def decide(value: int) -> str | Drop:
        if value < 0:
            return Drop("negative", "below zero", related_id="rel", item_id="custom", source="elsewhere")
        if value == 0:
            return Drop("zero", "nothing")
        return f"v{value}"

    ledger = _ledger()
    kept = apply_step([3, -1, 0, 5], Step(decide, lambda v: f"id{v}", lambda v: "src"), ledger)
    assert kept == ["v3", "v5"]
    assert ledger.rejects == [
        Reject("custom", "demo", "negative", "below zero", "elsewhere", "rel"),
        Reject("id0", "demo", "zero", "nothing", "src", None),
    ]
    assert ledger.rejected_by_reason == {"negative": 1, "zero": 1}


def test_step_adds_to_counts_already_in_the_ledger_and_reads_lazily() -> None:
    ledger = StageLedger("demo", items_in=2, items_out=2)
    seen: list[int] = []

    def records() -> Iterator[int]:
        for value in (1, 2):
            seen.append(value)
            yield value

    step = Step(lambda v: v * 10, lambda v: str(v), lambda v: "src")
    assert apply_step(records(), step, ledger) == [10, 20]
    assert seen == [1, 2]
    assert (ledger.items_in, ledger.items_out) == (4, 4)


def test_of_first_reads_the_record_of_a_pair() -> None:
    pairs = [({"id": "a"}, "ok"), ({"id": "b"}, "failed")]

    def decide(pair: tuple[dict[str, str], str]) -> dict[str, str] | Drop:
        row, result = pair
        return row if result == "ok" else Drop("llm_failed", result)

    get_id = of_first(lambda row: row["id"])
    ledger = _ledger()
    kept = apply_step(pairs, Step(decide, get_id, get_id), ledger)
    assert kept == [{"id": "a"}]
    assert ledger.rejects == [Reject("b", "demo", "llm_failed", "failed", "b")]


def test_empty_input_counts_nothing() -> None:
    ledger = _ledger()
    assert apply_filter([], _check_even, ledger, str, str) == []
    assert ledger.metrics()["items_in"] == 0


# --- group rule, chained steps, fan-out -------------------------------------------------------------


def _group_of(value: str) -> str:
    return value[0]  # "a1" belongs to group "a"


def test_group_step_keeps_one_survivor_per_group_and_names_it_in_each_reject() -> None:
    # 5 records in 2 groups (a: a1 a2 a3, b: b1 b2); the survivor is the largest number of its group.
    def choose(members: Sequence[str]) -> int:
        return max(range(len(members)), key=lambda i: members[i][1])

    step = GroupStep(
        _group_of, choose, lambda loser, survivor: Drop("outranked", f"{loser} < {survivor}"), str, _group_of
    )
    ledger = _ledger()
    kept = apply_group_step(["a1", "b2", "a3", "b1", "a2"], step, ledger)
    assert kept == ["b2", "a3"]  # input order, not group order
    assert (ledger.items_in, ledger.items_out, ledger.rejected) == (5, 2, 3)
    assert ledger.rejects == [
        Reject("a1", "demo", "outranked", "a1 < a3", "a", "a3"),
        Reject("b1", "demo", "outranked", "b1 < b2", "b", "b2"),
        Reject("a2", "demo", "outranked", "a2 < a3", "a", "a3"),
    ]
    ledger.check_balance()


def test_group_step_can_pass_a_group_whole_or_refuse_it_whole() -> None:
    def choose(members: Sequence[str]) -> int | Drop:
        return KEEP_ALL if members[0][0] == "a" else Drop("bad_group", f"{len(members)} members")

    step = GroupStep(_group_of, choose, lambda loser, survivor: Drop("never", ""), str, _group_of)
    ledger = _ledger()
    assert apply_group_step(["a1", "b1", "a2", "b2", "b3"], step, ledger) == ["a1", "a2"]
    assert [(r.id, r.reason, r.detail, r.related_id) for r in ledger.rejects] == [
        ("b1", "bad_group", "3 members", None),
        ("b2", "bad_group", "3 members", None),
        ("b3", "bad_group", "3 members", None),
    ]


def test_first_survives_keeps_the_first_of_each_group() -> None:
    step = first_survives(_group_of, lambda loser, survivor: Drop("repeat", loser), str, _group_of)
    ledger = _ledger()
    assert apply_group_step(["a1", "a2", "b1", "a3"], step, ledger) == ["a1", "b1"]
    assert [(r.id, r.related_id) for r in ledger.rejects] == [("a2", "a1"), ("a3", "a1")]


def test_chained_steps_count_each_record_in_once_per_stage() -> None:
    # 6 in; the first step drops 1 and 3 (odd), the chained one drops 4 (> 3): 6 in, 2 out, 3 rejected.
    ledger = _ledger()
    evens = apply_filter([1, 2, 3, 4, 0, 5], _check_even, ledger, str, str)

    def at_most_three(value: int) -> int | Drop:
        return value if value <= 3 else Drop("big", str(value))

    small = Step(at_most_three, str, str)
    assert apply_step(evens, small, ledger, chained=True) == [2, 0]
    assert (ledger.items_in, ledger.items_out, ledger.rejected) == (6, 2, 4)
    ledger.check_balance()


def test_fan_out_counts_each_item_once_and_a_record_without_items_as_one_reject() -> None:
    # Events with 2, 0 and 1 URLs: 3 items handed on plus 1 event rejected; 4 in, 3 out.
    events = [("e1", ["u1", "u2"]), ("e2", []), ("e3", ["u3"])]

    def expand(event: tuple[str, list[str]]) -> list[str] | Drop:
        return [f"{event[0]}:{url}" for url in event[1]] or Drop("no_link", "no URL")

    ledger = _ledger()
    items = fan_out(events, expand, ledger, lambda e: e[0], lambda e: "wcep")
    assert items == ["e1:u1", "e1:u2", "e3:u3"]
    assert (ledger.items_in, ledger.items_out) == (4, 3)
    assert ledger.rejects == [Reject("e2", "demo", "no_link", "no URL", "wcep")]

    # The next step takes the items over: 4 in, 2 out, 2 rejected.
    def resolved(item: str) -> Drop | None:
        return Drop("gone", item) if item.endswith("u2") else None

    resolve = filter_step(resolved, str, str)
    assert apply_step(items, resolve, ledger, chained=True) == ["e1:u1", "e3:u3"]
    assert (ledger.items_in, ledger.items_out, ledger.rejected) == (4, 2, 2)
    ledger.check_balance()


def test_a_repeat_of_the_same_id_need_not_name_itself_as_survivor() -> None:
    step = first_survives(_group_of, lambda loser, first: Drop("again", ""), str, str, names_survivor=False)
    ledger = _ledger()
    assert apply_group_step(["a1", "a2"], step, ledger) == ["a1"]
    assert ledger.rejects == [Reject("a2", "demo", "again", "", "a2", None)]


def test_keep_whole_counts_a_bulk_pass_like_a_step_that_keeps_each() -> None:
    ledger = _ledger()
    keep_whole(ledger, 3)
    assert apply_filter([1, 2], _check_even, ledger, str, str) == [2]
    assert (ledger.items_in, ledger.items_out, ledger.rejected) == (5, 4, 1)
    ledger.check_balance()


def test_fold_into_makes_the_groups_the_items() -> None:
    # 5 quads, 1 malformed; the 4 valid ones fold into 2 groups: 3 items in (1 quad + 2 groups), 2 out.
    ledger = _ledger()
    valid = apply_filter([2, 4, 5, 6, 8], _check_even, ledger, str, str)
    fold_into(ledger, len(valid), 2)
    assert (ledger.items_in, ledger.items_out, ledger.rejected) == (3, 2, 1)
    ledger.check_balance()


def test_table_step_counts_a_whole_table_rule_like_a_row_step() -> None:
    # 4 rows kept, 2 rejected in one table: 6 in, 4 out, rejects counted by reason.
    ledger = TableLedger("demo")
    rows = [
        {"id": "e1", "stage": "demo", "reason": "same_country", "detail": "", "source": "f:1"},
        {"id": "e2", "stage": "demo", "reason": "unknown_root_code", "detail": "", "source": "f:2"},
    ]
    table_step(ledger, 4, table_from_rows([{**row, "related_id": None} for row in rows], REJECT_SCHEMA))
    assert (ledger.items_in, ledger.items_out, ledger.rejected) == (6, 4, 2)
    assert ledger.rejected_by_reason == {"same_country": 1, "unknown_root_code": 1}
    ledger.check_balance()


def test_a_producing_step_counts_records_and_writes_how_many_items_they_yielded() -> None:
    # Articles yielding 2, 0 and 3 questions: 3 in, 2 out, 1 rejected; 5 produced.
    def questions(n: int) -> list[str] | Drop:
        return [f"q{n}.{i}" for i in range(n)] or Drop("no_question", "none")

    ledger = _ledger()
    items = apply_producing_step([2, 0, 3], Step(questions, str, str), ledger, "candidates")
    assert items == ["q2.0", "q2.1", "q3.0", "q3.1", "q3.2"]
    assert (ledger.items_in, ledger.items_out, ledger.rejected) == (3, 2, 1)
    assert ledger.metrics()["candidates"] == 5
