"""One dataset version at a git revision: its released tables, params and metrics.

Tables are read through DVC's cache at the revision (``dvc.api.DVCFileSystem``), so nobody checks anything
out by hand. When the cache lacks a revision's objects the caller either gets a clear error or, on request,
the revision is rebuilt by ``dvc repro`` in a temporary git worktree that shares this repository's DVC
cache, LLM cache and untracked raw inputs, so that no finished stage or LLM call is repeated.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fsspec
import pyarrow as pa
import yaml
from dvc.api import DVCFileSystem
from dvc.repo import Repo
from dvc_data.index.index import DataIndexError
from fsspec.implementations.dirfs import DirFileSystem
from tqdm import tqdm

from almanac.core.layout import REPORTS
from almanac.reports.revision_tree import link_folder
from almanac.reports.revision_values import (
    RevisionFiles,
    Unsupported,
    check_plain_layout,
    fast_params_and_metrics,
)
from almanac.reports.styles import DatasetStyle, TableKey, read_split_tables

WORKSPACE = "workspace"  # as in `dvc params diff`: the working tree, not a commit


class MissingDataError(RuntimeError):
    """A revision's released data is not in the local DVC cache."""


@dataclass(frozen=True)
class ValueChange:
    """One param or metric that differs, as ``dvc params diff`` / ``dvc metrics diff`` list it."""

    path: str  # params.yaml, reports/metrics/dedup.json, ...
    key: str  # dotted, e.g. dedup.threshold
    old: Any  # None: absent at rev_a
    new: Any  # None: absent at rev_b
    change: float | None = None  # new - old when both are numbers


def tool_env() -> dict[str, str]:
    """The environment for git and dvc subprocesses: this interpreter's bin folder first on PATH."""
    return {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "DVC_NO_ANALYTICS": "1",
    }


def _run(command: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command, cwd=cwd, env=tool_env(), capture_output=True, text=True)
    if check and result.returncode != 0:
        output = (result.stdout + result.stderr).strip()[-3000:]
        raise RuntimeError(f"`{' '.join(command)}` failed in {cwd} ({result.returncode}):\n{output}")
    return result


def resolve_rev(repo: Path, rev: str) -> str:
    """The commit a revision names (``workspace`` stays as is); ValueError when git does not know it."""
    if rev == WORKSPACE:
        return WORKSPACE
    result = _run(["git", "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"], repo, check=False)
    if result.returncode != 0:
        raise ValueError(f"git does not know the revision {rev!r} in {repo}")
    return result.stdout.strip()


def local_fs(root: Path) -> fsspec.AbstractFileSystem:
    """The working tree at ``root`` with repository-relative paths, like DVCFileSystem's."""
    return DirFileSystem(path=str(root), fs=fsspec.filesystem("file"))


class RevisionReader:
    """Reads the released tables of one revision, rebuilding it in a worktree when asked to."""

    def __init__(self, repo: Path, rev: str, build_missing: bool, stack: ExitStack) -> None:
        self.repo = repo
        self.rev = rev
        self.commit = resolve_rev(repo, rev)
        self.build_missing = build_missing
        self.notes: list[str] = []
        self._stack = stack
        self._fs: fsspec.AbstractFileSystem | None = None  # the working tree, DVC's or a rebuilt worktree
        self._files: RevisionFiles | None = None  # the commit's git objects and DVC outputs
        self._linked: set[str] = set()  # folders of the commit laid out in the scratch folder
        self._scratch: Path | None = None

    def _filesystem(self, folder: str) -> fsspec.AbstractFileSystem:
        """A filesystem with ``folder`` of the revision: a commit's folders are linked into a scratch
        folder from git objects and the cache (revision_tree.py), unless its layout needs DVC's."""
        if self._fs is not None:
            return self._fs
        if self.commit == WORKSPACE:
            self._fs = local_fs(self.repo)
            return self._fs
        try:
            if self._files is None or self._scratch is None:
                files = RevisionFiles(self.repo, self.commit, _cache_dir(self.repo))
                check_plain_layout(files)
                self._files = files
                scratch = self._stack.enter_context(tempfile.TemporaryDirectory(prefix="almanac-rev-"))
                self._scratch = Path(scratch)
            if folder not in self._linked:
                self._linked.add(folder)
                link_folder(self._files, folder, self._scratch)
            return local_fs(self._scratch)
        except Unsupported:  # a layout only DVC's own filesystem reads
            dvc_fs = DVCFileSystem(str(self.repo), rev=self.commit)
            self._stack.callback(dvc_fs.close)
            self._fs = dvc_fs
            return self._fs

    def tables(self, style: DatasetStyle) -> dict[TableKey, pa.Table]:
        try:
            return read_split_tables(style, None, fs=self._filesystem(style.splits_dir.rstrip("/")))
        except (FileNotFoundError, DataIndexError) as error:
            # DataIndexError: a directory's listing (.dir object) is missing; FileNotFoundError from
            # DVCFileSystem.open: "No storage files available" for one file's object.
            if self.commit == WORKSPACE:
                raise
            if not self.build_missing:
                raise MissingDataError(
                    f"the {style.name} data of revision {self.rev!r} ({self.commit[:10]}) is not in the "
                    f"local DVC cache ({error}). Fetch it with `dvc pull` (or `git checkout {self.rev} && "
                    "dvc repro`), or pass build_missing=True (--build-missing) to rebuild that revision "
                    "in a temporary worktree."
                ) from error
        tree = self._stack.enter_context(built_worktree(self.repo, self.commit, self.notes))
        self.notes.insert(0, f"`{self.rev}` was rebuilt by `dvc repro` in a temporary worktree.")
        self._fs = local_fs(tree)
        return read_split_tables(style, None, fs=self._fs)


def _cache_dir(repo: Path) -> Path:
    """The repository's local DVC cache folder (``dvc cache dir``), from its config files."""
    from dvc.config import Config

    cache = Config(dvc_dir=str(repo / ".dvc"))["cache"]
    if "local" in cache:  # the cache is a named remote's: let DVC resolve it
        with Repo(str(repo)) as dvc_repo:
            return Path(dvc_repo.cache.local_cache_dir).resolve()
    return Path(cache.get("dir") or repo / ".dvc" / "cache").resolve()


def _llm_cache_path(root: Path) -> str | None:
    params_file = root / "params.yaml"
    params = yaml.safe_load(params_file.read_text()) if params_file.exists() else None
    llm = params.get("llm") if isinstance(params, dict) else None
    value = llm.get("cache_path") if isinstance(llm, dict) else None
    return value if isinstance(value, str) and value else None


def link_llm_cache(repo: Path, tree: Path) -> Path | None:
    """Point the worktree's LLM cache (params llm.cache_path, repo-relative) at the main repository's.

    SQLite follows the symlink, so its -wal/-shm files live next to the real cache.
    """
    tree_path = _llm_cache_path(tree)
    if tree_path is None or Path(tree_path).is_absolute():
        return None
    source = repo / (_llm_cache_path(repo) or tree_path)
    target = tree / tree_path
    if target.exists() or target.is_symlink():
        return None
    source.parent.mkdir(parents=True, exist_ok=True)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.symlink_to(source.resolve())
    return target


def link_untracked_inputs(repo: Path, tree: Path) -> list[str]:
    """Link stage inputs that git and DVC do not hold (e.g. downloaded raw files) from the main repository.

    Returns the repository-relative paths linked.
    """
    with Repo(str(tree)) as tree_repo:
        stages = list(tree_repo.index.stages)
        outs = [Path(out.fs_path) for stage in stages for out in stage.outs]
        deps = sorted({Path(dep.fs_path) for stage in stages for dep in stage.deps})
    linked = []
    for dep in deps:
        if dep.exists() or not dep.is_relative_to(tree):
            continue
        if any(dep == out or out in dep.parents for out in outs):
            continue  # built by a stage
        relative = dep.relative_to(tree)
        source = repo / relative
        if source.exists():
            dep.parent.mkdir(parents=True, exist_ok=True)
            dep.symlink_to(source.resolve(), target_is_directory=source.is_dir())
            linked.append(relative.as_posix())
    return linked


@contextmanager
def built_worktree(repo: Path, commit: str, notes: list[str] | None = None) -> Iterator[Path]:
    """A temporary worktree of ``commit`` after `dvc checkout` and `dvc repro`; removed on exit, always."""
    scratch = Path(tempfile.mkdtemp(prefix="almanac-rev-"))
    tree = scratch / "tree"
    try:
        tqdm.write(f"building {commit[:10]} in a temporary worktree (dvc repro)", file=sys.stderr)
        _run(["git", "worktree", "add", "--detach", str(tree), commit], repo)
        _run(["dvc", "cache", "dir", "--local", str(_cache_dir(repo))], tree)
        link_llm_cache(repo, tree)
        linked = link_untracked_inputs(repo, tree)
        if linked and notes is not None:
            notes.append(
                "Inputs missing from that revision, taken from the working tree: " + ", ".join(linked)
            )
        _run(["dvc", "checkout", "--quiet"], tree, check=False)  # whatever the cache has; repro does the rest
        _run(["dvc", "repro"], tree)
        yield tree
    finally:
        _run(["git", "worktree", "remove", "--force", str(tree)], repo, check=False)
        shutil.rmtree(scratch, ignore_errors=True)
        _run(["git", "worktree", "prune"], repo, check=False)


def _changes(result: dict[str, Any]) -> tuple[ValueChange, ...]:
    changes = []
    for path, keys in result.get("diff", {}).items():
        for key, values in keys.items():
            old, new = values.get("old"), values.get("new")
            change = None if isinstance(old, bool) or isinstance(new, bool) else values.get("diff")
            changes.append(ValueChange(path, key, old, new, change))
    return tuple(sorted(changes, key=lambda change: (change.path, change.key)))


def _errors(kind: str, result: dict[str, Any]) -> list[str]:
    notes: list[str] = []
    for rev, errors in sorted(result.get("errors", {}).items()):
        items = errors.items() if isinstance(errors, dict) else [("", errors)]
        notes.extend(
            f"dvc could not read {kind} {path or ''} at {rev}: {error}"
            for path, error in items
            # A counts file of one revision only (a new stage or month) is absent from the other: no error.
            if not isinstance(error, FileNotFoundError)
        )
    return notes


def count_files(repo: Path, commit: str) -> set[str]:
    """The JSON files under reports/ at ``commit``: git-tracked ones and the DVC outputs its dvc.lock
    lists (for ``workspace``: the working tree's, untracked files included).

    dvc.yaml declares only the style summaries as metrics, so that `dvc metrics show` stays readable; a
    version diff also compares every stage's metrics (DVC-cached outputs, which keep the stages'
    run-cache), the reports' metrics and the check counts (git-tracked, ``cache: false``).
    """
    root = REPORTS.as_posix()
    if commit == WORKSPACE:
        listing = _run(["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", root], repo)
        lock_path = repo / "dvc.lock"
        lock_text = lock_path.read_text(encoding="utf-8") if lock_path.is_file() else ""
    else:
        listing = _run(["git", "ls-tree", "-r", "--name-only", commit, "--", root], repo)
        shown = _run(["git", "show", f"{commit}:dvc.lock"], repo, check=False)
        lock_text = shown.stdout if shown.returncode == 0 else ""  # a revision before its first build
    lock = yaml.load(lock_text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}  # 6x faster
    outs = {
        str(out["path"]) for stage in (lock.get("stages") or {}).values() for out in stage.get("outs") or []
    }
    files = set(listing.stdout.splitlines()) | outs
    return {path for path in files if path.startswith(f"{root}/") and path.endswith(".json")}


def dvc_params_and_metrics(
    repo: Path, commit_a: str, commit_b: str, files: list[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """DVC's own `params diff` and `metrics diff` (of ``files``) results, read by its brancher."""
    with Repo(str(repo)) as dvc_repo:
        params = dvc_repo.params.diff(a_rev=commit_a, b_rev=commit_b)
        # Absolute paths: DVC resolves targets against the working directory, not the repository.
        targets = [str(repo.resolve() / path) for path in files]
        metrics = dvc_repo.metrics.diff(a_rev=commit_a, b_rev=commit_b, targets=targets) if targets else {}
    return params, metrics


def params_and_metrics(
    repo: Path, commit_a: str, commit_b: str
) -> tuple[tuple[ValueChange, ...], tuple[ValueChange, ...], list[str]]:
    """What `dvc params diff` and `dvc metrics diff` (over every counts file) show, plus read errors.

    Read from git objects and the DVC cache (revision_values.py, ~5x cheaper than DVC's brancher, the same
    result); a layout that reader does not model goes to DVC.
    """
    files = sorted(count_files(repo, commit_a) | count_files(repo, commit_b))
    try:
        params, metrics = fast_params_and_metrics(repo, commit_a, commit_b, files, _cache_dir(repo))
        metrics = metrics if files else {}
    except Unsupported:
        params, metrics = dvc_params_and_metrics(repo, commit_a, commit_b, files)
    return _changes(params), _changes(metrics), _errors("params", params) + _errors("metrics", metrics)
