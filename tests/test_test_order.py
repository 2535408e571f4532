"""The order the whole suite runs in under xdist (tests/conftest.py): a worker's share ends with short tests."""

from __future__ import annotations

from dataclasses import dataclass

from tests.conftest import slow_first


@dataclass
class FakeItem:
    name: str
    slow: bool

    def get_closest_marker(self, name: str) -> object | None:
        return object() if name == "slow" and self.slow else None


def test_slow_tests_come_first_and_each_group_keeps_its_order() -> None:
    items = [FakeItem("a", False), FakeItem("b", True), FakeItem("c", False), FakeItem("d", True)]
    ordered = slow_first(items)  # type: ignore[arg-type]
    assert [item.name for item in ordered] == ["b", "d", "a", "c"]
    assert slow_first([]) == []
