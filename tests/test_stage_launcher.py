"""stages/python: every dvc.yaml stage runs with the project's interpreter however dvc was started."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BARE_PATH = "/usr/bin:/bin"  # what `.venv/bin/dvc repro` sees without an activated venv


def fake_interpreter(path: Path, name: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'#!/bin/sh\necho "{name} $*"\n')
    path.chmod(0o755)
    return path


def launch(project: Path, env: dict[str, str]) -> str:
    result = subprocess.run(
        ["sh", "stages/python", "-m", "stages.dedup", "--params", "p.yaml"],
        cwd=project,
        env={"PATH": BARE_PATH, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout.strip()


@pytest.fixture()
def project(tmp_path: Path) -> Path:
    (tmp_path / "stages").mkdir()
    shutil.copy(ROOT / "stages/python", tmp_path / "stages/python")
    return tmp_path


def test_project_venv_wins_over_path(project: Path) -> None:
    fake_interpreter(project / ".venv/bin/python", "venv")
    other = fake_interpreter(project / "elsewhere/python3", "path")
    assert launch(project, {"PATH": f"{other.parent}:{BARE_PATH}"}) == "venv -m stages.dedup --params p.yaml"


def test_almanac_python_overrides_the_venv(project: Path) -> None:
    fake_interpreter(project / ".venv/bin/python", "venv")
    chosen = fake_interpreter(project / "conda/bin/python", "conda")
    assert launch(project, {"ALMANAC_PYTHON": str(chosen)}) == "conda -m stages.dedup --params p.yaml"


def test_without_a_venv_python3_on_path_runs(project: Path) -> None:
    other = fake_interpreter(project / "elsewhere/python3", "path")
    assert launch(project, {"PATH": f"{other.parent}:{BARE_PATH}"}) == "path -m stages.dedup --params p.yaml"


@pytest.mark.skipif(not (ROOT / ".venv/bin/python").exists(), reason="no project venv (make setup)")
def test_real_launcher_reaches_the_project_packages_with_a_bare_path() -> None:
    """The failure this prevents: `.venv/bin/dvc repro` ran the system python (ModuleNotFoundError)."""
    result = subprocess.run(
        ["sh", "stages/python", "-c", "import sys, pyarrow, almanac; print(sys.prefix)"],
        cwd=ROOT,
        env={"PATH": BARE_PATH, "HOME": os.environ.get("HOME", "/tmp")},
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(result.stdout.strip()).resolve() == (ROOT / ".venv").resolve()
