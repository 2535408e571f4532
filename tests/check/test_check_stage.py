"""The one ``check`` stage runs every style's check and cross-style in one process: a style that fails is
named and leaves no summary, the others still run and write theirs, and the stage exits 1."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from almanac.check import stage
from almanac.check.report import StyleReport


def _report(style: str, rows: int, bad_ids: tuple[str, ...] = ()) -> StyleReport:
    report = StyleReport(style, "all", rows=rows)
    report.check("start_before_resolution", "-", [(f"r{n}", None) for n in range(rows - len(bad_ids))])
    report.check("start_before_resolution", "-", [(item, "starts after it resolves") for item in bad_ids])
    return report


@pytest.fixture
def checked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """Every style passes with 2 rows except mirai, one of whose 3 rows leaks; records the run order."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "params.yaml").write_text("{}\n")
    order: list[str] = []

    def check_style(style: str, month: str, params: Mapping[str, Any]) -> StyleReport:
        order.append(style)
        return _report(style, 3, ("m1",)) if style == "mirai" else _report(style, 2)

    def cross_style(params: Mapping[str, Any]) -> StyleReport:
        order.append(stage.CROSS_STYLE)
        return _report(stage.CROSS_STYLE, 2)

    monkeypatch.setattr(stage, "check_style", check_style)
    monkeypatch.setattr(stage, "cross_style", cross_style)
    return order


def test_one_leaking_style_fails_the_stage_and_the_others_still_write_their_summaries(
    checked: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "argv", ["check.py"])
    assert stage.run() == 1
    # every check ran, each style's own before the cross-style one
    assert checked == [
        "openforesight",
        "futuresim",
        "openforecast",
        "mirai",
        "futurex",
        "series",
        "cross_style",
    ]
    err = capsys.readouterr().err
    assert "check_mirai: released rows violate start_before_resolution" in err
    assert err.strip().splitlines()[-1] == "check: FAILED for mirai"
    written = sorted(path.stem for path in (tmp_path / "reports/check").glob("*.json"))
    assert written == ["cross_style", "futuresim", "futurex", "openforecast", "openforesight", "series"]
    summary = json.loads((tmp_path / "reports/check/series.json").read_text())
    assert (summary["rows"], summary["ok"]) == (2, True)


def test_style_runs_only_the_styles_named(
    checked: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(sys, "argv", ["check.py", "--style", "series", "--style", "openforesight"])
    assert stage.run() == 0
    assert checked == ["openforesight", "series"]  # the stage's order, not the command line's
    assert sorted(path.stem for path in (tmp_path / "reports/check").glob("*.json")) == [
        "openforesight",
        "series",
    ]
