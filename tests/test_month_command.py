"""`almanac month add` and `remove`: a month in one command, and out again leaving `git status` as it was."""

from __future__ import annotations

import contextlib
import hashlib
import os
import resource
import shutil
import time
from pathlib import Path

import pytest
import yaml

from almanac import cli
from almanac.pipeline.months import (
    drop_lock_entries,
    mapping_line,
    place_file,
    remove_path,
    replace_top_level_line,
)
from tests.support.project import run

MONTH = "2025-07"  # not in the sample: a copy of June under a new name
LOCK = """schema: '2.0'
stages:
  ccnews_ingest@2025-06:
    cmd: a
    outs:
    - path: x
  ccnews_ingest@2025-07:
    cmd: b
    deps:
    - path: y
  dedup:
    cmd: c
"""


def test_a_months_lock_entries_are_cut_out_whole() -> None:
    text, dropped = drop_lock_entries(LOCK, MONTH)
    assert dropped == ["ccnews_ingest@2025-07"]
    assert text == LOCK.replace("  ccnews_ingest@2025-07:\n    cmd: b\n    deps:\n    - path: y\n", "")


def test_a_params_list_line_is_replaced_and_given_back() -> None:
    text = '# months\nmonths: ["2025-05"]  # note\nempty_months: []\n'
    changed, original = replace_top_level_line(text, "months", 'months: ["2025-05", "2025-07"]')
    assert changed == '# months\nmonths: ["2025-05", "2025-07"]\nempty_months: []\n'
    assert replace_top_level_line(changed, "months", original)[0] == text
    # A block list (as yaml.safe_dump writes it) is replaced whole, and given back as it was.
    block = "months:\n- 2025-05\n- 2025-06\nprogress: true\n"
    changed, original = replace_top_level_line(block, "months", 'months: ["2025-05"]')
    assert changed == 'months: ["2025-05"]\nprogress: true\n'
    assert replace_top_level_line(changed, "months", original)[0] == block
    with pytest.raises(ValueError, match="no one top-level months"):
        replace_top_level_line("progress: true\n", "months", "months: []")


def test_the_per_source_empty_months_line_is_replaced_and_given_back() -> None:
    line = mapping_line("empty_months", {"ccnews": ["2025-07"], "gdelt": []})
    assert line == 'empty_months: {ccnews: ["2025-07"], gdelt: []}'
    assert yaml.safe_load(line) == {"empty_months": {"ccnews": ["2025-07"], "gdelt": []}}
    # a block mapping (as yaml.safe_dump writes it) is replaced whole, and given back as it was
    block = "empty_months:\n  ccnews:\n  - 2025-05\n  gdelt: []\nprogress: true\n"
    changed, original = replace_top_level_line(block, "empty_months", line)
    assert changed == line + "\nprogress: true\n"
    assert replace_top_level_line(changed, "empty_months", original)[0] == block


def test_removal_unlinks_a_symlink_and_never_enters_it(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("the user's")
    output = tmp_path / "output"
    output.mkdir()
    (output / "link").symlink_to(outside, target_is_directory=True)
    (tmp_path / "top-link").symlink_to(outside, target_is_directory=True)
    assert remove_path(output) and remove_path(tmp_path / "top-link")
    assert (outside / "keep.txt").read_text() == "the user's"
    assert not remove_path(tmp_path / "absent")


def test_placing_a_file_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("new")
    (tmp_path / "b").write_text("someone's")
    with pytest.raises(ValueError, match="exists already"):
        place_file(tmp_path / "a", tmp_path / "b")
    assert (tmp_path / "b").read_text() == "someone's"
    placed = place_file(tmp_path / "a", tmp_path / "c")
    assert placed.read_text() == "new" and os.stat(placed).st_ino == os.stat(tmp_path / "a").st_ino


def test_add_refuses_a_month_it_cannot_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = Path(__file__).resolve().parents[1]
    for name in ("params.yaml", "dvc.yaml"):
        shutil.copy2(root / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    before = (tmp_path / "params.yaml").read_text()
    assert cli.main(["month", "add", "2025-05"]) == 1
    assert "2025-05 is already in params.yaml months" in capsys.readouterr().err
    # No CC-News folder for July and neither --ccnews nor --empty ccnews: nothing is changed.
    assert cli.main(["month", "add", MONTH, "--build", "none"]) == 1
    assert "give --ccnews DIR, or --empty ccnews" in capsys.readouterr().err
    assert cli.main(["month", "add", MONTH, "--empty", "wiki"]) == 1
    assert "sources are ['ccnews', 'gdelt']" in capsys.readouterr().err
    assert cli.main(["month", "remove", MONTH]) == 1
    assert "was not added by `almanac month add`" in capsys.readouterr().err
    assert (tmp_path / "params.yaml").read_text() == before and not (tmp_path / "data").exists()


def _tree(project: Path) -> dict[str, str]:
    """Every file of the project (links as their target), DVC's cache and state and git's store aside."""
    found: dict[str, str] = {}
    for folder, dirs, files in os.walk(project):
        base = Path(folder)
        dirs[:] = [d for d in dirs if (base / d).relative_to(project).as_posix() not in SKIP]
        for name in files:
            path = base / name
            key = path.relative_to(project).as_posix()
            found[key] = (
                os.readlink(path) if path.is_symlink() else hashlib.md5(path.read_bytes()).hexdigest()
            )
    return found


SKIP = {".git", ".dvc/cache", ".dvc/tmp", ".dvc/site_cache"}


@pytest.mark.slow
# `month add --build month` runs the month's stages: ordered with the rebuilding tests (conftest.py)
@pytest.mark.rebuilds(25)
def test_add_build_remove_leaves_the_tree_as_it_was(
    sample_build: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "project"
    shutil.copytree(sample_build, project, symlinks=True)
    source = tmp_path / "june-as-july"  # the user's folder: the tool links its files, never moves them
    shutil.copytree(project / "data/raw/sample/ccnews/2025-06", source)
    # A user's clone: the built sample committed (DVC's outputs git-ignored), so a change shows in git status.
    run(["git", "add", "-A"], project)
    run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "built"], project)
    status = run(["git", "status", "--porcelain"], project).stdout
    tree = _tree(project)
    started, cpu = time.monotonic(), _cpu()
    _month(["add", MONTH, "--ccnews", str(source), "--empty", "gdelt", "--build", "month"], project, capsys)
    added, added_cpu = time.monotonic() - started, _cpu() - cpu
    # The month is listed, its derived lists rendered, its own stages built from the linked files.
    assert f'"{MONTH}"' in (project / "params.yaml").read_text()
    rendered = (project / "dvc.yaml").read_text()
    assert f'ccnews_months: ["2025-04", "2025-05", "2025-06", "{MONTH}"]' in rendered
    lock = (project / "dvc.lock").read_text()
    assert f"ccnews_ingest@{MONTH}:" in lock and f"dedup_signatures@{MONTH}:" in lock
    assert (project / f"data/dedup/signatures/{MONTH}.parquet").is_file()
    assert sorted(p.name for p in (project / f"data/raw/sample/ccnews/{MONTH}").iterdir()) == sorted(
        p.name for p in source.iterdir()
    )
    assert run(["git", "status", "--porcelain"], project).stdout != status
    started, cpu = time.monotonic(), _cpu()
    _month(["remove", MONTH], project, capsys)
    removed, removed_cpu = time.monotonic() - started, _cpu() - cpu
    assert run(["git", "status", "--porcelain"], project).stdout == status
    assert _tree(project) == tree
    left = [str(path) for path in project.rglob(f"*{MONTH}*") if ".dvc/cache" not in str(path)]
    assert left == []
    assert sorted(p.name for p in source.iterdir())  # the user's folder is untouched
    print(
        f"month add {added:.1f} s wall ({added_cpu:.1f} s CPU), "
        f"month remove {removed:.1f} s wall ({removed_cpu:.1f} s CPU)"
    )


def _month(args: list[str], project: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`almanac month ARGS` run from ``project`` in this process (its `dvc repro` is a process of its own):
    one interpreter start and almanac import fewer per command than `python -m almanac.cli`."""
    with contextlib.chdir(project):
        code = cli.main(["month", *args])
    said = capsys.readouterr()
    assert code == 0, said.err
    print(said.out, end="")


def _cpu() -> float:
    """This process's CPU seconds and its finished children's (the month's `dvc repro` and its stages)."""
    used = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    return sum(usage.ru_utime + usage.ru_stime for usage in used)
