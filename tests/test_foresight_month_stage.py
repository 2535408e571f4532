"""``foresight_month@<month>`` runs the six OpenForesight steps of the month in order in one process and
stops at the first step that fails, with that step's exit code (a later step never reads a stale input)."""

from __future__ import annotations

import argparse
from typing import Any

import pytest

from almanac.foresight import month_stage


def test_the_steps_run_in_order_and_a_failure_stops_the_month(monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[tuple[str, str]] = []

    def step(name: str, code: int) -> Any:
        def run_step(month: str, params: dict[str, Any]) -> int:
            ran.append((name, month))
            return code

        return run_step

    monkeypatch.setattr(
        month_stage, "parse_stage_args", lambda *_a, **_k: (argparse.Namespace(month="2025-05"), {})
    )
    monkeypatch.setattr(month_stage, "STEPS", (step("qgen", 0), step("validate", 0), step("select", 0)))
    assert month_stage.run() == 0
    assert ran == [("qgen", "2025-05"), ("validate", "2025-05"), ("select", "2025-05")]
    ran.clear()
    monkeypatch.setattr(month_stage, "STEPS", (step("qgen", 0), step("validate", 3), step("select", 0)))
    assert month_stage.run() == 3
    assert [name for name, _month in ran] == ["qgen", "validate"]  # select never ran
