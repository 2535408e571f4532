"""Where publish may write, what it replaces, file modes, and verify (issue 15)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from almanac import cli
from almanac.reports.publish import PublishConfig, publish, verify_manifest
from tests.reports.publish_project import _params, project

__all__ = ["project"]  # pytest fixtures used by name


# --- Where publish may write, what it replaces, file modes, and verify (issue 15) ---


def _snapshot(folder: Path) -> dict[str, tuple[str, bytes | str, int]]:
    """Every entry below ``folder`` (links as links): kind, bytes or link text, mode."""
    entries: dict[str, tuple[str, bytes | str, int]] = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder).as_posix()
        mode = path.lstat().st_mode & 0o7777
        if path.is_symlink():
            entries[relative] = ("link", str(path.readlink()), mode)
        elif path.is_dir():
            entries[relative] = ("dir", "", mode)
        else:
            entries[relative] = ("file", path.read_bytes(), mode)
    return entries


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if ".publish-" in p.name or ".old-" in p.name)


def _unrelated(folder: Path) -> Path:
    (folder / "notes").mkdir(parents=True)
    (folder / "thesis.tex").write_text("chapter one")
    (folder / "notes/todo.txt").write_text("do not lose me")
    return folder


def test_publish_replaces_its_own_earlier_release_and_removes_links_as_links(project: Path) -> None:
    outside = project / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_text("keep")
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    (folder / "link-to-file").symlink_to(outside / "precious.txt")
    (folder / "data/link-to-dir").symlink_to(outside, target_is_directory=True)
    (folder / "stale.txt").write_text("from the old release")
    again = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    assert again == folder
    assert not (folder / "link-to-file").exists() and not (folder / "data/link-to-dir").is_symlink()
    assert not (folder / "stale.txt").exists()
    assert (outside / "precious.txt").read_text() == "keep" and sorted(os.listdir(outside)) == [
        "precious.txt"
    ]
    assert verify_manifest(folder) == []
    assert json.loads((folder / ".almanac-publish.json").read_text()) == {
        "scope": "all",
        "style": "openforesight",
        "tool": "almanac publish",
    }
    assert _leftovers(project) == []


def test_publish_refuses_an_unrelated_folder_and_leaves_it_byte_identical(project: Path) -> None:
    target = _unrelated(project / "mine")
    before = _snapshot(target)
    for force in (False, True):  # a folder almanac did not make is never moved, even with --force
        with pytest.raises(ValueError, match=r"is a folder with files, not made by `almanac publish`"):
            publish("openforesight", "all", _params(project), PublishConfig(), target, force=force)
    assert _snapshot(target) == before
    assert _leftovers(project) == []
    # An earlier publish of another scope is not "the same dataset" either.
    publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    release = _snapshot(project / "out")
    with pytest.raises(
        ValueError, match=r"holds the publish of openforesight all, not .* openforesight 2025-05"
    ):
        publish("openforesight", "2025-05", _params(project), PublishConfig(), project / "out")
    assert _snapshot(project / "out") == release


def test_publish_into_an_empty_folder_is_allowed(project: Path) -> None:
    (project / "empty").mkdir()
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "empty")
    assert verify_manifest(folder) == []


def test_cli_publish_force_moves_an_earlier_release_of_another_scope_aside(
    project: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cli, "_refuse_leaks", lambda *args: None)  # `almanac check` has its own tests
    assert cli.main(["publish", "openforesight", "2025-04", "--out", "mine"]) == 0
    capsys.readouterr()
    before = _snapshot(project / "mine")
    assert cli.main(["publish", "openforesight", "all", "--out", "mine"]) == 1
    assert "refusing to replace it (pass --force" in capsys.readouterr().err
    assert _snapshot(project / "mine") == before
    assert cli.main(["publish", "openforesight", "all", "--out", "mine", "--force"]) == 0
    assert "moved the existing" in capsys.readouterr().err
    assert _snapshot(project / "mine.before-publish") == before  # moved, not deleted
    assert verify_manifest(project / "mine") == [] and (project / "mine/README.md").is_file()
    assert _leftovers(project) == []


def test_publish_refuses_an_out_that_is_a_symlink_and_leaves_its_target_alone(project: Path) -> None:
    real = _unrelated(project / "real")
    before = _snapshot(real)
    (project / "link").symlink_to(real, target_is_directory=True)
    for force in (False, True):
        with pytest.raises(ValueError, match="is a symlink"):
            publish("openforesight", "all", _params(project), PublishConfig(), project / "link", force=force)
    assert (project / "link").is_symlink() and _snapshot(real) == before
    # Even a link to an earlier release of the same dataset: the link is not followed.
    old = publish("openforesight", "all", _params(project), PublishConfig(), project / "old")
    (project / "to-old").symlink_to(old, target_is_directory=True)
    released = _snapshot(old)
    with pytest.raises(ValueError, match="is a symlink"):
        publish("openforesight", "all", _params(project), PublishConfig(), project / "to-old")
    assert _snapshot(old) == released


@pytest.mark.parametrize(
    "out",
    ["data/release", "./data/../data/x", "data", ".dvc/x", ".git/x", "via-link/x", ".", ".."],
)
def test_publish_refuses_out_inside_project_data_dvc_git_or_over_the_project(project: Path, out: str) -> None:
    for name in (".dvc", ".git"):
        (project / name).mkdir()
    (project / "via-link").symlink_to(project / "data", target_is_directory=True)
    before = _snapshot(project / "data")
    with pytest.raises(
        ValueError, match=r"inside the project's (data|\.dvc|\.git)/|would replace the project"
    ):
        publish("openforesight", "all", _params(project), PublishConfig(), Path(out), repo=project)
    assert _snapshot(project / "data") == before
    assert not (project / ".dvc/x").exists() and not (project / ".git/x").exists()


def test_published_files_are_0644_and_folders_0755(project: Path) -> None:
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    modes = {path: path.stat().st_mode & 0o7777 for path in [folder, *folder.rglob("*")]}
    assert modes[folder] == 0o755 and modes[folder / "data/default"] == 0o755
    assert modes[folder / "manifest.json"] == 0o644 and modes[folder / "data/default/train.parquet"] == 0o644
    assert {mode for path, mode in modes.items() if path.is_dir()} == {0o755}
    assert {mode for path, mode in modes.items() if path.is_file()} == {0o644}


def _add_entry(folder: Path, path: str, content: bytes) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    digest = hashlib.sha256(content).hexdigest()
    manifest["files"].append({"path": path, "bytes": len(content), "sha256": digest})
    (folder / "manifest.json").write_text(json.dumps(manifest))


def test_verify_refuses_dotdot_absolute_and_symlinked_paths(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    secret = b"outside the release"
    (project / "secret.txt").write_bytes(secret)
    (project / "elsewhere").mkdir()
    (project / "elsewhere/secret.txt").write_bytes(secret)
    (folder / "linked").symlink_to(project / "elsewhere", target_is_directory=True)
    # Each entry's size and checksum match the file a symlink-following reader would open.
    _add_entry(folder, "../secret.txt", secret)
    _add_entry(folder, str(project / "secret.txt"), secret)
    _add_entry(folder, "linked/secret.txt", secret)
    copy = project / "copy.parquet"
    copy.write_bytes((folder / "data/default/test.parquet").read_bytes())
    (folder / "data/default/test.parquet").unlink()
    (folder / "data/default/test.parquet").symlink_to(copy)
    assert verify_manifest(folder) == [
        "data/default/test.parquet: is a symlink (not followed)",
        "../secret.txt: '..' in a manifest path",
        f"{project / 'secret.txt'}: absolute path in the manifest",
        "linked/secret.txt: path goes through the symlink linked",
        "linked: symlink (not followed)",
    ]
    assert cli.main(["verify", str(folder)]) == 1
    out = capsys.readouterr().out
    assert "mismatch: ../secret.txt: '..' in a manifest path" in out and "5 problem(s)" in out


def test_verify_refuses_a_symlinked_manifest(project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = publish("openforesight", "all", _params(project), PublishConfig(), project / "out")
    (project / "manifest.json").write_bytes((folder / "manifest.json").read_bytes())
    (folder / "manifest.json").unlink()
    (folder / "manifest.json").symlink_to(project / "manifest.json")
    assert cli.main(["verify", str(folder)]) == 1
    assert "manifest.json is missing, or is not a regular file" in capsys.readouterr().err
