"""The one keep-or-reject loop: counts, reject rows (id, source, override, related id) and order."""

from __future__ import annotations

from collections.abc import Iterator

from almanac.core.rejects import Reject, StageLedger
from almanac.core.step import Drop, Step, apply_filter, apply_step, of_first


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
