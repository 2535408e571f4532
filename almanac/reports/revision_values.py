"""`dvc params diff` and `dvc metrics diff` of two revisions, read from git objects and the DVC cache.

DVC's own diff walks each revision with its brancher: it builds the whole stage index of the revision
(dvc.yaml with its foreach/matrix expansion, dvc.lock, every output) to learn which params files the stages
name, then reads each file through its filesystem. On the sample that is ~2/3 of an ``almanac diff``.
The files themselves are few and small, so this module reads them directly: a file is the git blob at the
commit (``git cat-file --batch``, one process per revision), else the cache object dvc.lock names for that
output, the order in which DVC's filesystem looks too. The values are parsed, selected and compared by
DVC's own functions, so the result is DVC's, key for key.

Whatever this reader does not model (another dvc.yaml, a ``wdir``, vars files, interpolated params, a
directory where a file is expected, a file DVC could not parse) raises :class:`Unsupported`, and the caller
asks DVC instead.
"""

from __future__ import annotations

import copy
import io
import os
import re
import subprocess
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

WORKSPACE = "workspace"
PARAMS_FILE = "params.yaml"  # DVC's default params file, read whole when it exists
_VARIABLE = re.compile(r"^\$\{\s*([\w.-]+)\s*\}$")


class Unsupported(Exception):
    """A layout this reader does not model; DVC's brancher reads the revision instead."""


def git_objects(repo: Path, commit: str, paths: Iterable[str]) -> dict[str, bytes | None]:
    """The blob of each path at ``commit`` (None: git has no such path there)."""
    wanted = list(dict.fromkeys(paths))
    if not wanted:
        return {}
    if any("\n" in path for path in wanted):
        raise Unsupported("a path with a newline")
    request = "".join(f"{commit}:{path}\n" for path in wanted).encode()
    output = subprocess.run(
        ["git", "cat-file", "--batch"], cwd=repo, input=request, capture_output=True, check=True
    ).stdout
    found: dict[str, bytes | None] = {}
    position = 0
    for path in wanted:
        end = output.index(b"\n", position)
        header = output[position:end].split()
        position = end + 1
        if header[-1] in (b"missing", b"ambiguous"):
            found[path] = None
            continue
        kind, size = header[1], int(header[2])
        if kind != b"blob":
            raise Unsupported(f"{path} is a {kind.decode()} at {commit}")  # a folder: DVC expands it
        found[path] = output[position : position + size]
        position += size + 1
    return found


def git_files(repo: Path, commit: str, folder: str) -> list[str]:
    """The files git tracks at or under ``folder`` at ``commit`` (the working tree's for ``workspace``)."""
    if commit == WORKSPACE:
        command = ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", folder]
    else:
        command = ["git", "ls-tree", "-r", "-z", "--name-only", commit, "--", folder]
    listing = subprocess.run(command, cwd=repo, capture_output=True, check=True).stdout.decode()
    return [path for path in listing.split("\0") if path]


def cache_object(cache_dir: Path, out: dict[str, Any], directories: bool = False) -> Path | None:
    """Where the DVC cache keeps the object of one dvc.lock output (None: the output has no hash).

    A directory's object is its listing (``.dir``); without ``directories`` that is Unsupported here.
    """
    md5 = out.get("md5")
    if not isinstance(md5, str) or len(md5) < 3:
        return None
    if md5.endswith(".dir") and not directories:
        raise Unsupported(f"{out.get('path')} is a directory output")
    if out.get("hash") == "md5":
        return cache_dir / "files" / "md5" / md5[:2] / md5[2:]
    return cache_dir / md5[:2] / md5[2:]  # outputs locked by DVC 2 (no `hash: md5`)


@dataclass
class RevisionFiles:
    """The files of one revision (a commit or the working tree) as DVC's filesystem sees them."""

    repo: Path
    commit: str
    cache_dir: Path
    _outs: dict[str, dict[str, Any]] | None = field(default=None, init=False)

    def read(self, paths: Iterable[str]) -> dict[str, bytes | None]:
        """Each path's bytes: git's (or the working tree's), else the cached output dvc.lock names."""
        wanted = list(dict.fromkeys(paths))
        if self.commit == WORKSPACE:
            found = {path: self._working_file(path) for path in wanted}
        else:
            found = git_objects(self.repo, self.commit, wanted)
        for path in wanted:
            if found[path] is None:
                found[path] = self._cached_output(path)
        return found

    def _working_file(self, path: str) -> bytes | None:
        target = self.repo / path
        if target.is_dir():
            raise Unsupported(f"{path} is a folder in the working tree")
        try:
            return target.read_bytes()
        except FileNotFoundError:
            return None

    def _cached_output(self, path: str) -> bytes | None:
        outs = self.lock_outs()
        out = outs.get(path)
        if out is None:
            inside = [parent for parent in Path(path).parents if parent.as_posix() in outs]
            if inside:  # a file of a directory output: its listing says where it is; DVC reads it
                raise Unsupported(f"{path} is inside the output {inside[0].as_posix()}")
            return None
        location = cache_object(self.cache_dir, out)
        try:
            return location.read_bytes() if location is not None else None
        except FileNotFoundError:
            return None  # DVC's filesystem says "No storage files available": a FileNotFoundError too

    def lock_outs(self) -> dict[str, dict[str, Any]]:
        if self._outs is None:
            if self.commit == WORKSPACE:
                lock = self._working_file("dvc.lock")
            else:
                lock = git_objects(self.repo, self.commit, ["dvc.lock"])["dvc.lock"]
            stages = (_yaml(lock) or {}).get("stages") or {}
            self._outs = {
                os.path.normpath(str(out["path"])): out
                for stage in stages.values()
                for out in stage.get("outs") or []
            }
        return self._outs


def _yaml(content: bytes | None) -> Any:
    if content is None:
        return None
    return yaml.load(content, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _lookup(context: dict[str, Any], name: str) -> Any:
    value: Any = context
    for part in name.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            raise Unsupported(f"${{{name}}} is not resolved here")
    return value


def _instances(stage: dict[str, Any], context: dict[str, Any]) -> int:
    """How many stages a dvc.yaml entry makes (foreach/matrix over an empty list make none)."""

    def resolved(value: Any) -> Any:
        if isinstance(value, str):
            match = _VARIABLE.match(value)
            if match is None:
                raise Unsupported(f"foreach/matrix over {value!r}")
            return _lookup(context, match.group(1))
        return value

    if "foreach" in stage:
        items = resolved(stage["foreach"])
        if not isinstance(items, list | dict):
            raise Unsupported("foreach over a non-collection")
        return len(items)
    if "matrix" in stage:
        count = 1
        for values in (stage["matrix"] or {}).values():
            items = resolved(values)
            if not isinstance(items, list | dict):
                raise Unsupported("matrix over a non-collection")
            count *= len(items)
        return count
    return 1


def merge_params(entries: Iterable[Any]) -> dict[str, list[str]]:
    """Params files and their keys as DVC merges them: a file named without keys is tracked whole."""
    entries = list(entries)
    whole = {name for entry in entries if isinstance(entry, dict) for name, keys in entry.items() if not keys}
    merged: dict[str, list[str]] = {}
    for entry in entries:
        if isinstance(entry, str):
            if PARAMS_FILE not in whole:
                merged.setdefault(PARAMS_FILE, []).append(entry)
            continue
        if not isinstance(entry, dict):
            raise Unsupported(f"a params entry {entry!r}")
        for name, keys in entry.items():
            if name in whole:
                merged[name] = []
            elif isinstance(keys, list) and all(isinstance(key, str) for key in keys):
                merged.setdefault(name, []).extend(keys)
            else:
                raise Unsupported(f"params keys {keys!r} of {name}")
    return merged


def params_files(dvc_yaml: Any, params: Any) -> dict[str, list[str]]:
    """The params files (and keys) the stages of one dvc.yaml name; ``params`` is params.yaml's data."""
    if dvc_yaml is None:
        return {}
    if not isinstance(dvc_yaml, dict):
        raise Unsupported("dvc.yaml is not a mapping")
    context: dict[str, Any] = dict(params) if isinstance(params, dict) else {}
    for item in dvc_yaml.get("vars") or []:
        if not isinstance(item, dict):
            raise Unsupported("vars read from a file")  # DVC tracks those values as params too
        context.update(item)
    per_stage: list[dict[str, list[str]]] = []
    for stage in (dvc_yaml.get("stages") or {}).values():
        if not isinstance(stage, dict):
            raise Unsupported("a stage that is not a mapping")
        body = stage.get("do", stage) if "foreach" in stage else stage
        if not isinstance(body, dict) or body.get("wdir", ".") != "." or "vars" in body:
            raise Unsupported("a stage with its own wdir or vars")
        entries = body.get("params") or []
        if "${" in repr(entries):
            raise Unsupported("interpolated params")
        if _instances(stage, context):
            per_stage.append(merge_params(entries))
    top_level: list[dict[str, list[str]]] = [
        {os.path.normpath(str(name)): []} for name in dvc_yaml.get("params") or []
    ]
    files = [{os.path.normpath(name): keys} for stage in per_stage for name, keys in stage.items()]
    return merge_params([*files, *top_level])


class _OneFile:
    """The two calls DVC's loaders make on a filesystem, answered from bytes already read."""

    def __init__(self, content: bytes) -> None:
        self.content = content

    def suffix(self, path: str) -> str:
        return os.path.splitext(path)[1]

    def open(self, path: str, encoding: str = "utf-8", **kwargs: Any) -> io.StringIO:
        return io.StringIO(self.content.decode(encoding))


def _parsed(reads: dict[str, bytes | None], parse: Any) -> dict[str, dict[str, Any]]:
    """DVC's per-file results: {"data": ...}, or {"error": FileNotFoundError} for a file absent there."""
    results: dict[str, dict[str, Any]] = {}
    for path, content in reads.items():
        if content is None:
            results[path] = {"error": FileNotFoundError(path)}
            continue
        try:
            results[path] = {"data": parse(path, _OneFile(content))}
        except Exception as error:  # DVC's note would word it its own way: let DVC read this one
            raise Unsupported(f"{path}: {error}") from error
    return results


_MISSING = object()


def _searched(config: Any, key: str) -> dict[str, Any] | None:
    """What ``dpath.search(config, key, separator=".")`` finds for a plain dotted key, by walking that one
    path ({} when it is absent); None when the key needs dpath's own search (a glob, an empty part, a
    list or a non-text key on the way)."""
    parts = key.split(".")
    if any(mark in key for mark in "*?[]") or "" in parts:
        return None
    node: Any = config
    for part in parts:
        if not isinstance(node, dict) or not all(isinstance(name, str) for name in node):
            return None
        node = node.get(part, _MISSING)
        if node is _MISSING:
            return {}
    found: dict[str, Any] = {parts[-1]: node}
    for part in reversed(parts[:-1]):
        found = {part: found}
    return found


def plain_selection(config: Any, keys: list[str]) -> dict[str, Any] | None:
    """What DVC's ``read_param_file`` selects from ``config`` with ``keys``; None when a key needs dpath's
    own search. DVC folds a dpath search over the whole file for every key (on the sample's ~130 keys,
    most of what reading a revision's params costs); here each key's path is walked, and the results are
    merged as DVC merges them (dpath's additive merge)."""
    import dpath

    searched = [_searched(config, key) for key in dict.fromkeys(keys)]
    found = [result for result in searched if result is not None]
    if len(found) < len(searched):
        return None
    selected: dict[str, Any] = {}
    for result in found:
        dpath.merge(selected, copy.deepcopy(result), separator=".")
    return selected


def read_params(fs: Any, path: str, keys: list[str]) -> Any:
    """DVC's ``read_param_file(fs, path, keys)``, with :func:`plain_selection` when it applies."""
    from dvc.dependency.param import read_param_file
    from dvc.utils.serialize import load_path

    if keys:
        selection = plain_selection(load_path(path, fs, cache=True), keys)
        if selection is not None:
            return selection
    return read_param_file(fs, path, keys or None, cache=True)


def revision_values(
    files: RevisionFiles, metric_paths: list[str]
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """(params, metrics) of one revision, shaped as DVC's ``params.show`` / ``metrics.show`` data."""
    from dvc.repo.metrics.show import _read_metric

    basics = files.read(["dvc.yaml", PARAMS_FILE])
    named = params_files(_yaml(basics["dvc.yaml"]), _yaml(basics[PARAMS_FILE]))
    if basics[PARAMS_FILE] is not None:
        named = merge_params([*({name: keys} for name, keys in named.items()), {PARAMS_FILE: []}])
    reads = files.read(named)
    params = _parsed(reads, lambda path, fs: read_params(fs, path, named[path]))
    metrics = _parsed(files.read(metric_paths), lambda path, fs: _read_metric(fs, path, cache=True))
    return params, metrics


def diff_results(
    values_a: dict[str, dict[str, Any]], values_b: dict[str, dict[str, Any]], rev_a: str, rev_b: str
) -> dict[str, Any]:
    """DVC's diff of two revisions' values (``dvc params diff`` / ``dvc metrics diff``)."""
    from dvc.repo.metrics.diff import _diff

    shown = {rev_a: {"data": values_a}, rev_b: {"data": values_b}}
    return dict(_diff(shown, rev_a, rev_b, with_unchanged=False))


def other_dvc_files(repo: Path, commit: str) -> Iterator[str]:
    """dvc.yaml files below the root and .dvc files: stages and outputs this reader does not model."""
    if commit == WORKSPACE:
        command = ["git", "ls-files", "--cached", "--others", "--exclude-standard"]
    else:
        command = ["git", "ls-tree", "-r", "--name-only", commit]
    listing = subprocess.run(command, cwd=repo, capture_output=True, text=True, check=True).stdout
    for path in listing.splitlines():
        if (path.endswith("/dvc.yaml") or path.endswith(".dvc")) and not path.startswith(".dvc/"):
            yield path


def check_plain_layout(files: RevisionFiles) -> None:
    """Raise Unsupported unless the revision's stages are those of the root dvc.yaml, each in the root
    folder (dvc.lock's paths are relative to a stage's wdir), and no .dvc file tracks data."""
    extra = next(other_dvc_files(files.repo, files.commit), None)
    if extra is not None:
        raise Unsupported(f"{extra} at {files.commit}")
    stages = (_yaml(files.read(["dvc.yaml"])["dvc.yaml"]) or {}).get("stages") or {}
    for stage in stages.values():
        body = stage.get("do", stage) if isinstance(stage, dict) and "foreach" in stage else stage
        if not isinstance(body, dict) or body.get("wdir", ".") != ".":
            raise Unsupported("a stage with its own wdir")


def fast_params_and_metrics(
    repo: Path, commit_a: str, commit_b: str, metric_paths: list[str], cache_dir: Path
) -> tuple[dict[str, Any], dict[str, Any]]:
    """DVC's (params diff, metrics diff) results for two revisions; raises Unsupported when it cannot."""
    values = []
    for commit in (commit_a, commit_b):
        files = RevisionFiles(repo, commit, cache_dir)
        check_plain_layout(files)
        values.append(revision_values(files, metric_paths))
    (params_a, metrics_a), (params_b, metrics_b) = values
    return (
        diff_results(params_a, params_b, commit_a, commit_b),
        diff_results(metrics_a, metrics_b, commit_a, commit_b),
    )
