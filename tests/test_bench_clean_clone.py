"""`make bench` from a clean clone: a bench whose input is absent there skips in one line, as the tests do.

bench.gdelt_ingest reads the real GDELT sample in ../shared/realdata (not in a clone); bench.noop_repro
times a no-op `dvc repro`, which before `make repro` would be the whole build.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench import gdelt_ingest, noop_repro


def test_gdelt_ingest_skips_without_the_real_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(gdelt_ingest, "REAL", tmp_path / "absent.export.CSV")
    monkeypatch.setattr(sys, "argv", ["bench.gdelt_ingest", "--out", str(tmp_path / "out.json")])
    gdelt_ingest.main()  # no SystemExit
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("bench.gdelt_ingest: skipped: the real GDELT sample")
    assert not (tmp_path / "out.json").exists()


def test_noop_repro_skips_an_unbuilt_project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert "no dvc.lock" in noop_repro.not_built(tmp_path)
    monkeypatch.setattr(sys, "argv", ["bench.noop_repro", "--project", str(tmp_path)])
    assert noop_repro.main() == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1 and out.startswith("bench.noop_repro: skipped:")
    (tmp_path / "dvc.lock").write_text("schema: '2.0'\nstages: {}\n")  # a lock, but no DVC project here
    assert "not built or not up to date" in noop_repro.not_built(tmp_path)
