"""How a stage ends: metrics without wall-clock time, floats rounded, timings apart, one summary line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from almanac.core import stage
from almanac.core.metrics import timing_keys, write_metrics
from almanac.core.rejects import StageLedger
from almanac.core.stage import counts_summary, finish_stage, start_stage
from almanac.llm.accounting import record_usage
from almanac.llm.config import RoleConfig
from tests.support.project import ROOT, make_project, run

SUMMARY = re.compile(r"^(?P<label>[a-z_]+(@[\w-]+)?): (?P<produced>.+) (?P<seconds>\d+\.\d)s$")


@pytest.fixture
def run_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A stage run named ``demo@2025-05`` in an empty project folder, taking 2.5 s by the clock."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(stage, "_label", None)  # restored after the test, like the two hooks below
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)
    monkeypatch.setattr(stage.time, "perf_counter", lambda: 102.5)
    start_stage("demo@2025-05", {})


def _ledger() -> StageLedger:
    ledger = StageLedger("demo", items_in=10, items_out=6)
    for i in range(3):
        ledger.reject(f"s{i}", "too_short", "", "f:1")
    ledger.reject("d", "bad_date", "", "f:2")
    return ledger


def test_summary_line_of_a_ledger_with_known_counts(
    run_named: None, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    finish_stage(_ledger(), 100.0, tmp_path / "rejects.parquet", tmp_path / "metrics.json")
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == "demo@2025-05: in=10 kept=6 rejected=4 (bad_date=1, too_short=3) 2.5s"
    assert SUMMARY.match(err.splitlines()[-1])


def test_counts_without_rejects_have_no_reason_list() -> None:
    assert counts_summary(3, 3, {}) == "in=3 kept=3 rejected=0"


def test_finish_stage_metrics_hold_no_time_and_the_timings_file_does(run_named: None, tmp_path: Path) -> None:
    ledger = _ledger()
    role = RoleConfig(backend="offline", model="m", name="generator")
    record_usage(ledger, role, [], [], 1.25)  # an LLM stage's accounting: counters, and 1.25 s of calls
    finish_stage(ledger, 100.0, tmp_path / "rejects.parquet", tmp_path / "metrics.json")
    text = (tmp_path / "metrics.json").read_text()
    metrics = json.loads(text)
    assert timing_keys(metrics) == [] and "second" not in text
    assert metrics["llm"]["generator.requests"] == 0  # the LLM counters are there, only their time is not
    assert (metrics["items_in"], metrics["items_out"], metrics["rejected"]) == (10, 6, 4)
    assert "generator.cache_hits" not in metrics["llm"]  # how this run got its answers is not data
    timings = json.loads((tmp_path / "metrics/timings/demo@2025-05.json").read_text())
    assert timings["stage"] == "demo@2025-05" and timings["seconds"] == 2.5
    assert timings["parts"] == {"llm.generator": 1.25}
    assert timings["run"]["llm.generator.cache_hits"] == 0 and timings["run"]["llm.generator.calls"] == 0


def test_worker_timings_add_up_when_ledgers_merge() -> None:
    total = StageLedger("demo")
    for seconds in (0.5, 0.75):
        worker = StageLedger("demo")
        worker.add_time("llm.generator", seconds)
        worker.add_run_count("llm.generator.calls", 2)
        total.merge(worker)
    assert total.timings == {"llm.generator": 1.25}
    assert total.run_counts == {"llm.generator.calls": 4}
    assert "seconds" not in total.metrics() and "run_counts" not in total.metrics()


def test_write_metrics_rounds_every_float_to_four_places(tmp_path: Path) -> None:
    data = {"share": 0.123456, "nested": {"thirds": [1 / 3, 2]}, "count": 7, "flag": True, "tiny": -0.00001}
    write_metrics(data, tmp_path / "m.json")
    assert json.loads((tmp_path / "m.json").read_text()) == {
        "share": 0.1235,
        "nested": {"thirds": [0.3333, 2]},
        "count": 7,
        "flag": True,
        "tiny": 0.0,
    }
    assert '"tiny": 0.0' in (tmp_path / "m.json").read_text()  # not -0.0


def test_write_metrics_refuses_a_wall_clock_key(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"found \['seconds', 'llm.editor.seconds'\]"):
        write_metrics({"seconds": 1.0, "llm": {"editor.seconds": 0.5}}, tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()


def test_a_stage_run_ends_with_its_summary_line_and_writes_its_timings(tmp_path: Path) -> None:
    project = make_project(tmp_path / "p", ray__executor="serial")
    result = run([sys.executable, "-m", "stages.wiki_ingest"], project)
    last = result.stderr.strip().splitlines()[-1]
    matched = SUMMARY.match(last)
    assert matched and matched["label"] == "wiki_ingest", last
    metrics = json.loads((project / "reports/metrics/wiki_ingest.json").read_text())
    kept, rejected = metrics["items_out"], metrics["rejected"]
    assert matched["produced"].startswith(f"in={metrics['items_in']} kept={kept} rejected={rejected} (")
    assert timing_keys(metrics) == []
    timings = json.loads((project / "metrics/timings/wiki_ingest.json").read_text())
    assert timings["stage"] == "wiki_ingest" and timings["seconds"] > 0
    assert "\r" not in result.stderr  # captured stderr is no terminal: no progress bar was drawn


@pytest.mark.skipif(not (ROOT / ".git").exists(), reason="needs the git checkout")
def test_timings_folder_is_git_ignored() -> None:
    ignored = subprocess.run(
        ["git", "check-ignore", "-q", "metrics/timings/dedup.json"], cwd=ROOT, check=False
    )
    assert ignored.returncode == 0
