"""Several steps in one stage process (almanac.core.steps): each step sees its own name as ``sys.argv[0]`` and
the stage's other arguments, in the declared order; the first failure stops the rest; ``--step`` picks."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from almanac.core.steps import Step, run_steps
from almanac.pipeline.dag import BY_NAME, STEPS


def _recorder(calls: list[list[str]], code: int = 0) -> Callable[[], int]:
    def step() -> int:
        calls.append(list(sys.argv))
        return code

    return step


def _steps(calls: list[list[str]], failing: str = "") -> list[Step]:
    return [(name, _recorder(calls, 3 if name == failing else 0)) for name in ("first", "second", "third")]


def test_each_step_runs_in_order_under_its_own_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["stages/host.py", "--month", "2025-05"])
    calls: list[list[str]] = []
    assert run_steps(_steps(calls)) == 0
    assert calls == [
        ["first.py", "--month", "2025-05"],
        ["second.py", "--month", "2025-05"],
        ["third.py", "--month", "2025-05"],
    ]


def test_the_first_failing_step_stops_the_stage_with_its_code(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["host.py"])
    calls: list[list[str]] = []
    assert run_steps(_steps(calls, failing="second")) == 3
    assert [call[0] for call in calls] == ["first.py", "second.py"]  # third reads second's outputs


def test_step_option_runs_the_named_steps_in_the_stage_order(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["host.py", "--step", "third", "--params", "p.yaml", "--step=first"])
    calls: list[list[str]] = []
    assert run_steps(_steps(calls)) == 0
    assert calls == [["first.py", "--params", "p.yaml"], ["third.py", "--params", "p.yaml"]]


def test_an_unknown_step_is_refused_before_any_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "argv", ["host.py", "--step", "fourth"])
    calls: list[list[str]] = []
    with pytest.raises(SystemExit, match="'fourth' is none of first, second, third"):
        run_steps(_steps(calls))
    assert calls == []


@pytest.mark.parametrize(
    "module",
    [
        "almanac.gdelt.month_stage",
        "almanac.reports.openforesight_stats_report_stage",
        "almanac.reports.openforecast_stats_report_stage",
        "almanac.reports.mirai_stats_report_stage",
    ],
)
def test_a_stage_runs_the_steps_its_declaration_names_in_order(module: str) -> None:
    """The order the function runs (its STEPS) is the order of the declared steps, whose outputs DVC knows."""
    imported = __import__(module, fromlist=["STEPS", "run"])
    (host,) = {name for name, stage in BY_NAME.items() if stage.function == f"{module}:run"}
    declared = [step.name for step in STEPS if step.runs_in == host]
    assert [name for name, _ in imported.STEPS] == declared
    assert set(BY_NAME[host].writes) == {
        path for step in STEPS if step.runs_in == host for path in step.writes
    }
