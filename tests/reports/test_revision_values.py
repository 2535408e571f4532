"""`almanac diff`'s params and metrics, read from git objects and the DVC cache, are DVC's own diff, key for key.

A git + DVC repository is written by hand (no `dvc repro`: dvc.lock and the cache objects are written as
DVC writes them), three commits and a working tree:

- params.yaml (read whole: DVC's default params file), a JSON params file of which the stages name some
  keys (``build.n`` by a foreach stage over ``months``; ``skip`` only by a foreach over an empty list, so it
  is never compared), and other.yaml, which a stage names without keys (read whole);
- metrics: reports/summary.json (git-tracked) and one DVC-cached reports/metrics/m/<month>.json per month,
  in the cache and dvc.lock only.

Commit 2 changes params (a number, a list, a number-to-string) and metrics; commit 3 swaps month a for c,
so a.json is removed and c.json added; the working tree edits a param and a metric and adds a counts file.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from almanac.reports import revisions
from almanac.reports.revision_values import (
    Unsupported,
    _OneFile,
    fast_params_and_metrics,
    merge_params,
    params_files,
    plain_selection,
)
from almanac.reports.revisions import ValueChange, count_files, dvc_params_and_metrics, params_and_metrics

DVC_YAML = """vars:
  - shards: []
stages:
  per_month:
    foreach: ${months}
    do:
      cmd: echo ${item}
      params:
        - data/code/params.json:
            - build.n
      outs:
        - reports/metrics/m/${item}.json
  never:
    foreach: ${shards}
    do:
      cmd: echo ${item}
      params:
        - data/code/params.json:
            - skip
  whole:
    cmd: echo whole
    params:
      - other.yaml:
  plain:
    cmd: echo plain
    params: [build.name]
"""


def _git(repo: Path, *args: str) -> str:
    identity = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t"}
    environment = {**os.environ, **identity, "GIT_COMMITTER_EMAIL": "t@x"}
    result = subprocess.run(["git", *args], cwd=repo, env=environment, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def _write(repo: Path, relative: str, text: str) -> None:
    (repo / relative).parent.mkdir(parents=True, exist_ok=True)
    (repo / relative).write_text(text)


def _version(
    repo: Path, n: int, n_string: bool, listy: list[int], months: list[str], month_q: dict[str, Any]
) -> None:
    """One version's files; the month metrics go to the cache and dvc.lock, as `dvc repro` would put them."""
    n_value: Any = str(n) if n_string else n
    _write(
        repo,
        "params.yaml",
        yaml.safe_dump({"months": months, "build": {"n": n, "name": "x"}, "listy": listy}),
    )
    code = {"build": {"n": n_value, "name": "x"}, "skip": {"q": n}}
    _write(repo, "data/code/params.json", json.dumps(code))
    _write(repo, "other.yaml", f"o: {n}\nnested:\n  deep: {n * 10}\n")
    summary = {"rows": 10 + n, "nested": {"x": n_value}, f"only_{n}": 1}
    _write(repo, "reports/summary.json", json.dumps(summary))
    stages: dict[str, Any] = {}
    for month in months:
        path = f"reports/metrics/m/{month}.json"
        content = json.dumps({"q": month_q[month], "label": "m"}).encode()
        md5 = hashlib.md5(content).hexdigest()
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_bytes(content)
        cached = repo / ".dvc/cache/files/md5" / md5[:2] / md5[2:]
        cached.parent.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(content)
        out = {"path": path, "hash": "md5", "md5": md5, "size": len(content)}
        stages[f"per_month@{month}"] = {"cmd": f"echo {month}", "outs": [out]}
    for stale in (repo / "reports/metrics/m").glob("*.json"):
        if stale.stem not in months:
            stale.unlink()
    _write(repo, "dvc.lock", yaml.safe_dump({"schema": "2.0", "stages": stages}, sort_keys=False))


@pytest.fixture(scope="module")
def values_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    repo = tmp_path_factory.mktemp("values") / "repo"
    repo.mkdir()
    _git(repo, "init", "-q")
    _write(repo, ".dvc/config", "[core]\n    analytics = false\n")
    _write(repo, ".dvc/.gitignore", "/cache\n/tmp\n")
    _write(repo, ".gitignore", "/reports/metrics/m/\n")
    _write(repo, "dvc.yaml", DVC_YAML)
    commits = []
    versions = [
        (1, False, [1, 2], ["a", "b"], {"a": 1, "b": 2}),
        (2, True, [1, 2, 3], ["a", "b"], {"a": 1, "b": 3}),  # n becomes a string in params.json and summary
        (3, False, [1, 2, 3], ["b", "c"], {"b": 3, "c": 7}),  # a.json removed, c.json added
    ]
    for number, version in enumerate(versions, start=1):
        _version(repo, *version)
        _git(repo, "add", "-A")
        _git(repo, "commit", "-qm", f"version {number}")
        commits.append(_git(repo, "rev-parse", "HEAD"))
    return repo, commits


def _comparable(result: dict[str, Any]) -> dict[str, Any]:
    """A diff result with each error as its type's name (exceptions do not compare equal)."""
    errors = {
        rev: {path: type(error).__name__ for path, error in found.items()}
        if isinstance(found, dict)
        else type(found).__name__
        for rev, found in result.get("errors", {}).items()
    }
    return {"diff": result.get("diff", {}), "errors": errors}


def _both(
    repo: Path, rev_a: str, rev_b: str
) -> tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]]:
    files = sorted(count_files(repo, rev_a) | count_files(repo, rev_b))
    fast = fast_params_and_metrics(repo, rev_a, rev_b, files, (repo / ".dvc/cache").resolve())
    slow = dvc_params_and_metrics(repo, rev_a, rev_b, files)
    return tuple(map(_comparable, fast)), tuple(map(_comparable, slow))


@pytest.mark.slow  # DVC's own diff of four pairs of revisions (~2 s of CPU each)
def test_params_and_metrics_read_from_git_are_dvcs_own(
    values_repo: tuple[Path, list[str]], tmp_path: Path
) -> None:
    repo, (first, second, third) = values_repo
    fast, slow = _both(repo, first, second)
    assert fast == slow
    params, metrics = fast[0]["diff"], fast[1]["diff"]
    # Worked out from the versions: only the keys the live stages name of params.json (build.n, not skip.q).
    assert params["data/code/params.json"] == {"build.n": {"old": 1, "new": "2"}}
    assert params["params.yaml"]["listy"] == {"old": "[1, 2]", "new": "[1, 2, 3]"}  # lists compare as text
    assert params["other.yaml"]["nested.deep"] == {"old": 10, "new": 20, "diff": 10}
    assert metrics["reports/metrics/m/b.json"] == {"q": {"old": 2, "new": 3, "diff": 1}}
    assert metrics["reports/summary.json"]["only_1"] == {"old": 1, "new": None}

    fast, slow = _both(repo, second, third)  # a DVC-cached metrics file removed (a) and one added (c)
    assert fast == slow
    label = {"old": "m", "new": None}  # a string is a metric to DVC too
    assert fast[1]["diff"]["reports/metrics/m/a.json"] == {"q": {"old": 1, "new": None}, "label": label}
    added = {"q": {"old": None, "new": 7}, "label": {"old": None, "new": "m"}}
    assert fast[1]["diff"]["reports/metrics/m/c.json"] == added
    assert "reports/metrics/m/a.json" in fast[1]["errors"][third]  # absent there: DVC's FileNotFoundError

    # The working tree: an edited param and metric, and a counts file no commit has.
    (repo / "other.yaml").write_text("o: 9\nnested:\n  deep: 30\n")
    (repo / "reports/metrics/new.json").write_text('{"items_out": 5}')
    (repo / "reports/metrics/m/b.json").write_text('{"q": 4, "label": "m"}')
    try:
        fast, slow = _both(repo, third, "workspace")
        assert fast == slow
        assert fast[0]["diff"] == {"other.yaml": {"o": {"old": 3, "new": 9, "diff": 6}}}
        assert fast[1]["diff"]["reports/metrics/new.json"] == {"items_out": {"old": None, "new": 5}}
        assert fast[1]["diff"]["reports/metrics/m/b.json"] == {"q": {"old": 3, "new": 4, "diff": 1}}
    finally:
        _git(repo, "checkout", "--", "other.yaml")
        (repo / "reports/metrics/new.json").unlink()
        (repo / "reports/metrics/m/b.json").write_text('{"q": 3, "label": "m"}')

    # A cache object gone (b.json of the first version): absent for both readers.
    lock = yaml.safe_load(_git(repo, "show", f"{first}:dvc.lock"))
    md5 = lock["stages"]["per_month@b"]["outs"][0]["md5"]
    cached = repo / ".dvc/cache/files/md5" / md5[:2] / md5[2:]
    kept = cached.read_bytes()
    cached.unlink()
    try:
        fast, slow = _both(repo, first, third)
        assert fast == slow
        b_file = {"q": {"old": None, "new": 3}, "label": {"old": None, "new": "m"}}
        assert fast[1]["diff"]["reports/metrics/m/b.json"] == b_file
    finally:
        cached.write_bytes(kept)


@pytest.mark.slow  # DVC's own diff of one pair of revisions
def test_a_layout_the_reader_does_not_model_goes_to_dvc(
    values_repo: tuple[Path, list[str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source, commits = values_repo
    repo = tmp_path / "repo"
    shutil.copytree(source, repo, symlinks=True)
    # A vars file: DVC tracks the values it supplies as params, which this reader does not model.
    (repo / "dvc.yaml").write_text(DVC_YAML.replace("  - shards: []\n", "  - shards: []\n  - vars.yaml\n"))
    (repo / "vars.yaml").write_text("label: v\n")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "vars file")
    files = sorted(count_files(repo, commits[-1]) | count_files(repo, "HEAD"))
    with pytest.raises(Unsupported, match="vars"):
        fast_params_and_metrics(
            repo, commits[-1], _git(repo, "rev-parse", "HEAD"), files, repo / ".dvc/cache"
        )
    asked: list[tuple[str, ...]] = []
    real = revisions.dvc_params_and_metrics

    def counted(*args: Any) -> Any:
        asked.append(args[1:3])
        return real(*args)

    monkeypatch.setattr(revisions, "dvc_params_and_metrics", counted)
    head = _git(repo, "rev-parse", "HEAD")
    _, metrics, _ = params_and_metrics(repo, commits[0], head)
    assert asked == [(commits[0], head)]
    assert ValueChange("reports/metrics/m/c.json", "q", None, 7, None) in metrics


def test_merge_params_tracks_a_file_named_without_keys_whole() -> None:
    merged = merge_params(["a", {"p.json": ["x", "y"]}, {"p.json": ["z"]}, {"o.yaml": []}, {"o.yaml": ["k"]}])
    assert merged == {"params.yaml": ["a"], "p.json": ["x", "y", "z"], "o.yaml": []}
    assert merge_params(["a", {"params.yaml": []}]) == {"params.yaml": []}


def _dvc_selection(config: dict[str, Any], keys: list[str]) -> Any:
    from dvc.dependency.param import read_param_file

    return read_param_file(_OneFile(json.dumps(config).encode()), "p.json", keys, cache=True)


def test_plain_selection_is_dvcs_own_selection() -> None:
    config = {"a": {"b": 1, "c": {"d": [1, 2]}, "e": None, "f": {}}, "g": [{"h": 1}], "i": "x"}
    keys = ["a.b", "a.c", "a.e", "a.f", "i", "missing", "a.missing.x", "a.b"]
    expected = {"a": {"b": 1, "c": {"d": [1, 2]}, "e": None, "f": {}}, "i": "x"}  # by hand: missing keys drop
    assert plain_selection(config, keys) == expected == _dvc_selection(config, keys)
    # A key inside another is merged as DVC merges it: a list selected twice is there twice.
    doubled = {"a": {"b": 1, "c": {"d": [1, 2, 1, 2]}, "e": None, "f": {}}}
    assert plain_selection(config, ["a", "a.c.d"]) == doubled == _dvc_selection(config, ["a", "a.c.d"])
    # Globs, a list or a text value on the way: dpath's own search decides.
    for needs_dpath in (["a.*"], ["g.0.h"], ["i.x"]):
        assert plain_selection(config, needs_dpath) is None
    # The project's own params file and the keys its stages name.
    root = Path(__file__).resolve().parents[2]
    named = params_files(
        yaml.safe_load((root / "dvc.yaml").read_text()), yaml.safe_load((root / "params.yaml").read_text())
    )
    project = json.loads((root / "data/code/params.json").read_text())
    keys = named["data/code/params.json"]
    assert len(keys) > 50
    assert plain_selection(project, keys) == _dvc_selection(project, keys)
