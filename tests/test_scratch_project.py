"""The scratch projects of the whole-pipeline tests (tests/support/project.py) are DVC projects as `dvc init` makes them."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.support.project import ROOT, dvc_init


def _files(project: Path) -> dict[str, bytes]:
    """Every file DVC's set-up leaves under .dvc (its `tmp` bookkeeping aside)."""
    return {
        path.relative_to(project).as_posix(): path.read_bytes()
        for path in sorted((project / ".dvc").rglob("*"))
        if path.is_file() and "tmp" not in path.relative_to(project / ".dvc").parts
    }


def _staged(project: Path) -> list[str]:
    """The files git has staged (`dvc init` stages its files before `dvc config` edits one: "AM")."""
    listed = subprocess.run(
        ["git", "diff", "--cached", "--name-only"], cwd=project, check=True, capture_output=True, text=True
    )
    return listed.stdout.splitlines()


def test_dvc_init_files_match_dvc_init(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dvc.cli import main
    from dvc.repo import Repo

    by_dvc, by_us = tmp_path / "dvc", tmp_path / "us"
    for project in (by_dvc, by_us):
        project.mkdir()
        (project / ".dvcignore").write_bytes((ROOT / ".dvcignore").read_bytes())
        subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    monkeypatch.chdir(by_dvc)  # DVC's own commands, in this process (no interpreter start-up)
    assert main(["init", "-q"]) == 0
    assert main(["config", "core.site_cache_dir", ".dvc/site_cache"]) == 0
    assert main(["config", "core.analytics", "false"]) == 0
    (by_dvc / ".dvc" / ".gitignore").write_bytes((ROOT / ".dvc" / ".gitignore").read_bytes())
    dvc_init(by_us)
    assert (by_us / ".dvc" / "tmp").is_dir()
    assert _files(by_us).keys() == _files(by_dvc).keys() == {".dvc/config", ".dvc/.gitignore"}
    assert _staged(by_us) == _staged(by_dvc) == [".dvc/.gitignore", ".dvc/config", ".dvcignore"]
    with Repo(str(by_dvc)) as theirs, Repo(str(by_us)) as ours:
        assert ours.config["core"] == theirs.config["core"]
        assert ours.config["core"]["analytics"] is False
        assert ours.config["core"]["site_cache_dir"].endswith(".dvc/site_cache")
