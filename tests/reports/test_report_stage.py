"""The ``<style>_report`` stage body: one process writes every month's report folder and the whole dataset's."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from almanac.core.params import report_scopes
from almanac.reports.model import Report
from almanac.reports.scope import ReportScope
from almanac.reports.stage import run_report_stage

ROOT = Path(__file__).resolve().parents[2]


def _project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """A scratch project with the repository's params; returns its months."""
    shutil.copy(ROOT / "params.yaml", tmp_path / "params.yaml")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "argv", ["mirai_report", "--params", "params.yaml"])
    import yaml

    months = yaml.safe_load((tmp_path / "params.yaml").read_text())["months"]
    assert len(months) >= 2  # the sample's; the test needs more than one month folder
    return [str(month) for month in months]


def _build(scope: ReportScope) -> Report:
    # metrics name the scope so each folder's file shows which report was written into it
    return Report(style="mirai", months=scope.months, metrics={"scope": scope.label, "whole": scope.whole})


def test_scopes_are_the_months_in_calendar_order_then_all() -> None:
    assert report_scopes({"months": ["2025-05", "2025-04"]}) == ["2025-04", "2025-05", "all"]


def test_one_run_writes_a_folder_per_month_and_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    months = _project(tmp_path, monkeypatch)
    stale = tmp_path / "reports/mirai/1999-01/metrics.json"  # a month no longer in params
    stale.parent.mkdir(parents=True)
    stale.write_text("{}")
    assert run_report_stage("mirai", _build, "test") == 0
    style = tmp_path / "reports/mirai"
    assert sorted(path.name for path in style.iterdir()) == sorted([*months, "all"])
    first = (style / months[0] / "metrics.json").read_text()
    assert f'"scope": "{months[0]}"' in first and '"whole": false' in first
    assert '"scope": "all"' in (style / "all/metrics.json").read_text()


def test_a_failing_scope_writes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _project(tmp_path, monkeypatch)
    previous = tmp_path / "reports/mirai/all/metrics.json"
    previous.parent.mkdir(parents=True)
    previous.write_text('{"previous": true}')

    def fails_on_all(scope: ReportScope) -> Report:
        if scope.whole:
            raise ValueError("no released rows")
        return _build(scope)

    assert run_report_stage("mirai", fails_on_all, "test") == 1
    # the months built before the failure were not written either: the previous folder is as it was
    assert sorted(path.name for path in (tmp_path / "reports/mirai").iterdir()) == ["all"]
    assert previous.read_text() == '{"previous": true}'
