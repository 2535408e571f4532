"""Doors closed (issue 24): where publish and report --out may never write, what --force may move,
stale staging folders of killed publishes, odd manifest entries, --month before any path."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from almanac import cli
from almanac.reports import publish as publish_module
from almanac.reports.publish import PublishConfig, publish, verify_manifest
from almanac.reports.release_folder import STAGING, TOOL, remove_stale_staging
from tests.reports.publish_project import _fake_report, _params, build_project, project
from tests.reports.test_publish_out import _add_entry, _snapshot

__all__ = ["project"]  # pytest fixtures used by name


@pytest.fixture()
def doors(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The publish project as a git checkout with tracked files, a home folder and a virtualenv in tmp."""
    home = project.parent / f"{project.name}-home" / "me"  # beside the project, not in it
    (home / "thesis").mkdir(parents=True)
    (home / "thesis" / "draft.tex").write_text("years of work")
    monkeypatch.setenv("HOME", str(home))  # never the real home folder
    (project / "stages").mkdir()
    (project / "stages" / "qgen.py").write_text("print('stage')\n")
    (project / "dvc.yaml").write_text("stages: {}\n")
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / ".venv" / "bin" / "python").write_text("#!")
    venv = project / "other-venv"
    (venv / "lib").mkdir(parents=True)
    monkeypatch.setattr(sys, "prefix", str(venv))  # as if this process ran from that virtualenv
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    subprocess.run(["git", "add", "stages/qgen.py", "dvc.yaml", "params.yaml"], cwd=project, check=True)
    return project


def _publish(project: Path, out: Path | str, force: bool) -> Path:
    return publish("openforesight", "all", _params(project), PublishConfig(), Path(out), force=force)


@pytest.mark.parametrize(
    ("out", "reason"),
    [
        ("/", "would replace the home folder"),  # / holds the home folder
        ("HOME/..", "would replace the home folder"),
        ("HOME", "would replace the home folder"),
        (".", "would replace the project folder"),
        ("..", "would replace the (project|home) folder"),  # it holds both
        ("stages", r"holds git-tracked files \(stages/\)"),
        ("stages/qgen.py", "is the git-tracked file stages/qgen.py"),
        ("dvc.yaml", "is the git-tracked file dvc.yaml"),
        ("data", r"inside the project's data/"),
        ("data/foresight", r"inside the project's data/"),
        (".git", r"inside the project's \.git/"),
        (".git/x", r"inside the project's \.git/"),
        (".venv", "is or holds the virtualenv"),
        (".venv/bin", "is or holds the virtualenv"),
        ("other-venv", "is or holds the virtualenv"),
    ],
)
def test_publish_refuses_every_door_with_or_without_force(doors: Path, out: str, reason: str) -> None:
    home = Path(os.environ["HOME"])
    out = out.replace("HOME", str(home))
    before = _snapshot(home) | {
        name: ("file", (doors / name).read_bytes(), 0) for name in ("dvc.yaml", "stages/qgen.py")
    }
    for force in (False, True):
        with pytest.raises(ValueError, match=reason) as raised:
            _publish(doors, out, force)
        assert "with or without --force" in str(raised.value) and "\n" not in str(raised.value)
    assert (
        _snapshot(home)
        | {name: ("file", (doors / name).read_bytes(), 0) for name in ("dvc.yaml", "stages/qgen.py")}
        == before
    )
    assert (doors / ".venv/bin/python").read_text() == "#!" and (doors / "other-venv/lib").is_dir()
    assert (
        sorted(p.name for p in doors.iterdir() if "before-publish" in p.name or ".publish-" in p.name) == []
    )


def test_publish_next_to_tracked_files_in_a_new_folder_is_allowed(doors: Path) -> None:
    folder = _publish(doors, doors / "stages" / "release", force=False)  # untracked, holds nothing tracked
    assert verify_manifest(folder) == []


def test_force_moves_an_earlier_report_but_never_a_folder_without_a_marker(
    doors: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "_refuse_leaks", lambda *args: None)
    assert cli.main(["report", "openforesight", "all", "--out", "rep"]) == 0
    marker = json.loads((doors / "rep" / ".almanac-report.json").read_text())
    assert marker == {"scope": "all", "style": "openforesight", "tool": "almanac report"}
    # A second report replaces its own earlier one.
    (doors / "rep" / "stale.csv").write_text("old")
    assert cli.main(["report", "openforesight", "all", "--out", "rep"]) == 0
    assert not (doors / "rep" / "stale.csv").exists()
    report = _snapshot(doors / "rep")
    capsys.readouterr()
    assert cli.main(["publish", "openforesight", "all", "--out", "rep", "--force"]) == 0
    assert "moved the existing" in capsys.readouterr().err
    assert _snapshot(doors / "rep.before-publish") == report  # moved aside, not deleted
    # The same files without the marker (a copy by hand): never moved, even with --force.
    (doors / "copy").mkdir()
    for name in ("report.md", "metrics.json"):
        (doors / "copy" / name).write_bytes((doors / "rep.before-publish" / name).read_bytes())
    before = _snapshot(doors / "copy")
    assert cli.main(["publish", "openforesight", "all", "--out", "copy", "--force"]) == 1
    err = capsys.readouterr().err
    assert "not made by `almanac publish` or `almanac report`" in err and len(err.strip().splitlines()) == 1
    assert _snapshot(doors / "copy") == before
    assert cli.main(["report", "openforesight", "all", "--out", "copy"]) == 1
    assert "not an earlier report (no .almanac-report.json)" in capsys.readouterr().err
    assert _snapshot(doors / "copy") == before


@pytest.mark.parametrize("out", ["data/reports", ".git/reports", "HOME", ".venv", "stages"])
def test_report_out_refuses_the_doors(doors: Path, out: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = out.replace("HOME", os.environ["HOME"])
    before = {path: path.stat().st_mtime_ns for path in doors.rglob("*") if not path.is_symlink()}
    assert cli.main(["report", "openforesight", "all", "--out", out]) == 1
    err = capsys.readouterr().err
    assert "refusing to write there (with or without --force)" in err and len(err.strip().splitlines()) == 1
    assert {path: path.stat().st_mtime_ns for path in doors.rglob("*") if not path.is_symlink()} == before


def _holder(parent: Path, name: str, pid: int, started: float | None) -> Path:
    holder = parent / name
    (holder / "release" / "data").mkdir(parents=True)
    (holder / "release" / "data" / "part.parquet").write_bytes(b"half written")
    (holder / STAGING).write_text(json.dumps({"tool": TOOL, "pid": pid, "started": started}))
    return holder


def _dead_pid() -> int:
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_stale_staging_of_dead_publishes_is_removed_and_nothing_else(tmp_path: Path) -> None:
    import psutil

    me = os.getpid()
    started = psutil.Process(me).create_time()
    dead = _holder(tmp_path, ".out.publish-dead", _dead_pid(), 1.0)
    reused = _holder(tmp_path, ".out.publish-reused", me, started - 1000.0)  # pid reused by another program
    running = _holder(tmp_path, ".other.publish-running", me, started)  # a publish in progress
    old = _holder(tmp_path, ".out.publish-old", me, started)
    os.utime(old, (time.time() - 3 * 86400, time.time() - 3 * 86400))
    unmarked = tmp_path / ".out.publish-unmarked"  # not provably ours: kept
    (unmarked / "release").mkdir(parents=True)
    outside = tmp_path / "outside"
    _holder(tmp_path / "outside", "target", _dead_pid(), 1.0)
    link = tmp_path / ".out.publish-link"  # a link to a dead holder elsewhere: never followed
    link.symlink_to(outside / "target", target_is_directory=True)
    removed = remove_stale_staging(tmp_path)
    assert sorted(path.name for path in removed) == sorted([dead.name, reused.name, old.name])
    assert running.is_dir() and unmarked.is_dir() and link.is_symlink()
    assert (outside / "target" / "release" / "data" / "part.parquet").read_bytes() == b"half written"


def test_the_next_publish_removes_a_killed_publishs_staging(project: Path) -> None:
    _holder(project, ".out.publish-killed", _dead_pid(), 1.0)
    folder = _publish(project, project / "out", force=False)
    assert verify_manifest(folder) == []
    assert sorted(p.name for p in project.iterdir() if ".publish-" in p.name) == []
    assert not (folder / STAGING).exists()  # the holder's marker never reaches the release


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The publish project's release, published once for the odd-entry cases below (each edits a copy):
    a publish draws the report's figure, ~0.3 s of CPU."""
    root = tmp_path_factory.mktemp("released")
    with pytest.MonkeyPatch.context() as scoped:
        scoped.chdir(root)
        build_project(root)
        scoped.setattr(publish_module, "build_style_report", _fake_report)
        return _publish(root, root / "out", force=False)


@pytest.mark.parametrize(
    "entry",
    [
        ".",
        "./",
        "./README.md",
        "data//default/test.parquet",
        "data/",
        "a\x00b",
        "a\nb",
        "x" * 5000 + "/y",
        "\\x",
    ],
)
def test_verify_reports_an_odd_manifest_entry_instead_of_crashing(
    released: Path, tmp_path: Path, entry: str, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = shutil.copytree(released, tmp_path / "out", symlinks=True)
    _add_entry(folder, entry, b"")
    problems = verify_manifest(folder)
    shown = entry if entry.isprintable() else repr(entry)
    assert len(problems) == 1 and problems[0].startswith(f"{shown}: "), problems
    assert cli.main(["verify", str(folder)]) == 1
    assert "1 problem(s) against manifest.json" in capsys.readouterr().out


@pytest.mark.parametrize("month", ["../../x", "2025-13", "2025-5", "all/../x", "2024-01"])
def test_a_bad_month_stops_report_and_publish_before_any_path(
    project: Path, month: str, capsys: pytest.CaptureFixture[str]
) -> None:
    before = sorted(str(path) for path in project.parent.rglob("*"))
    for command in (["report", "openforesight", month], ["publish", "openforesight", month]):
        assert cli.main(command) == 1
        err = capsys.readouterr().err
        assert err.startswith(f"almanac {command[0]}: --month") and len(err.strip().splitlines()) == 1
    assert sorted(str(path) for path in project.parent.rglob("*")) == before


TOKEN = "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42"


@pytest.mark.parametrize("offline_mode", [True, False])
def test_an_offline_hub_push_is_one_line_naming_the_host(
    project: Path, offline_mode: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import socket

    import huggingface_hub.constants

    with socket.socket() as sock:  # a loopback port nobody listens on: the "Hub" is unreachable
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setattr(huggingface_hub.constants, "ENDPOINT", f"http://127.0.0.1:{port}")
    # HF_HUB_OFFLINE=1 (as a user without network sets it), or a refused connection to the endpoint.
    monkeypatch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", offline_mode)
    monkeypatch.setattr(cli, "_refuse_leaks", lambda *args: None)
    monkeypatch.setenv("HF_TOKEN", TOKEN)
    monkeypatch.delenv("ALMANAC_DEBUG", raising=False)
    assert cli.main(["publish", "openforesight", "all", "--out", "out", "--push", "lab/almanac"]) == 1
    captured = capsys.readouterr()
    assert captured.out.strip() == str(project / "out")  # the release folder itself was built
    assert captured.err.startswith("almanac publish: push of ") and "cannot reach 127.0.0.1" in captured.err
    assert len(captured.err.splitlines()) == 1 and TOKEN not in captured.err


def test_a_failed_push_never_prints_the_token(
    project: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from almanac.reports import publish as publish_module

    def refused(folder: Path, repo_id: str, token: str, private: bool) -> str:
        # As a client library may put the request's headers in its error.
        raise RuntimeError(f"401 Unauthorized for {repo_id}: headers {{'authorization': 'Bearer {token}'}}")

    monkeypatch.setattr(publish_module, "upload_to_hub", refused)
    monkeypatch.setattr(cli, "_refuse_leaks", lambda *args: None)
    monkeypatch.setenv("MY_HUB_SECRET_VAR", TOKEN)
    params = _params(project)
    params["publish"] = {**params["publish"], "hub_token_env": "MY_HUB_SECRET_VAR"}  # type: ignore[dict-item]
    import yaml

    (project / "params.yaml").write_text(yaml.safe_dump(params))
    monkeypatch.delenv("ALMANAC_DEBUG", raising=False)
    assert cli.main(["publish", "openforesight", "all", "--out", "out", "--push", "lab/almanac"]) == 1
    err = capsys.readouterr().err
    assert TOKEN not in err and "Bearer ***" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("month", ["../../x", "2025-13"])
def test_check_takes_a_month_of_the_right_form_only(
    project: Path, month: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["check", "openforesight", month]) == 1
    err = capsys.readouterr().err
    assert err == f"almanac check: --month {month!r}: month must look like 2025-05, got {month!r}\n"
