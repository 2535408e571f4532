"""``make repro``'s no-op fast path: a stamp of what DVC's up-to-date decision read, checked without DVC.

After a ``make repro`` with no arguments in which DVC ran no stage (it compared every stage with dvc.lock and
found nothing to do), the launcher writes ``.dvc/tmp/almanac-noop-stamp.json`` (untracked, atomic): what the
decision depended on, read from DVC's own objects while its repository is open:

* the bytes (sha256) of each stage file and its lock file, each params file of a params dep, params.yaml
  (dvc.yaml's interpolation), DVC's config files, and the ignore rules (every ``.gitignore`` and
  ``.dvcignore`` in the directories walked below, git's exclude and config files);
* (inode, mtime_ns, ctime_ns, size) of every dep and out, directories walked whole (ignored files included:
  a change to one only costs a DVC run); (inode, mtime_ns, size) of the cache object(s) of each cached out,
  which DVC checks too (a deleted cache object is "not in cache", a rerun);
* (inode, mtime_ns, ctime_ns) of every directory DVC walks to find stage files (not git- or dvc-ignored, not
  an out): a new ``.dvc`` file or ``dvc.yaml`` anywhere changes its directory's times;
* the Python, the installed distributions (any install or upgrade changes the list), ``DVC_*`` and ``GIT_*``
  variables, ``HOME`` and ``XDG_*`` (where user-level config is found), and the launcher's own code.

The next ``make repro`` without arguments recomputes all of it (stats and a few hashes, no listing, no YAML)
and, when it equals the stamp, prints one line and exits without importing DVC. Anything else (no stamp, a
corrupt one, any difference, any argument) is DVC's path, as before.

Why this is DVC's own trust and no more: DVC decides that a file is unchanged from its state database, keyed
by (inode, mtime, size); the stamp uses the same and adds ctime, which no tool sets by hand. A stamp is
written only when every stat'ed or hashed entry's ctime is older than a filesystem time taken before DVC
started: nothing the stamp records changed while DVC was deciding, so what DVC saw is what is stamped
(git's "racily clean" rule). A file replaced by one with the same inode, size, mtime and ctime cannot happen
through the file system's own calls. Stages DVC always reruns (``always_changed``, no deps) never give a
no-op, so never a stamp.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

STAMP = Path(".dvc/tmp/almanac-noop-stamp.json")
FORMAT = 2
# The launcher's modules: an edit to them changes what the fast path means.
LAUNCHER_CODE = ("repro.py", "noop_stamp.py", "noop_recheck.py", "month_lists.py", "params.py")
# Set to anything to take DVC's path even when the stamp matches (benchmarks, distrust).
DISABLE_VARIABLE = "ALMANAC_REPRO_NO_FAST_PATH"

Stat = list[int]  # [inode, mtime_ns, ctime_ns, size, is_dir]


class NotStampable(Exception):
    """The repository has something the stamp cannot vouch for (a symlink, a remote dep, ...)."""


def stat_of(path: str, ctime: bool = True) -> Stat | None:
    """[inode, mtime_ns, ctime_ns (0 when not ``ctime``), size (0 for a folder), is_dir]; None when absent."""
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(found.st_mode):
        raise NotStampable(f"symlink {path}")
    is_dir = stat.S_ISDIR(found.st_mode)
    changed_ns = found.st_ctime_ns if ctime else 0
    return [found.st_ino, found.st_mtime_ns, changed_ns, 0 if is_dir else found.st_size, int(is_dir)]


def sha256_of(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except FileNotFoundError:
        return None


def environment() -> dict[str, Any]:
    """What, besides files of the project, DVC's decision and the fast path's meaning depend on."""
    site = sorted(
        {
            f"{folder}/{name}"
            for folder in sys.path
            if folder.endswith("-packages")
            for name in _dist_infos(folder)
        }
    )
    here = os.path.dirname(os.path.abspath(__file__))
    return {
        "python": [sys.executable, sys.version],
        "distributions": hashlib.sha256("\n".join(site).encode()).hexdigest(),
        # DVC's and git's own variables, and where their user-level config files are found
        "variables": sorted(
            f"{key}={value}"
            for key, value in os.environ.items()
            if (key.startswith(("DVC_", "GIT_")) and key != "DVC_NO_ANALYTICS")
            or key in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")
        ),
        "launcher": {name: sha256_of(os.path.join(here, name)) for name in LAUNCHER_CODE},
    }


def _dist_infos(folder: str) -> list[str]:
    try:
        return [name for name in os.listdir(folder) if name.endswith((".dist-info", ".egg-info", ".pth"))]
    except OSError:
        return []


def is_current(stamp_path: Path = STAMP) -> int | None:
    """The stage count the stamp vouches for when nothing it records changed; None otherwise."""
    if os.environ.get(DISABLE_VARIABLE):
        return None
    stages, _ = check(stamp_path)
    return stages


def check(stamp_path: Path = STAMP) -> tuple[int | None, str]:
    """(the stamp's stage count, "") when nothing it records changed, else (None, the first difference)."""
    try:
        stamp = json.loads(stamp_path.read_text(encoding="utf-8"))
        if stamp.get("format") != FORMAT:
            return None, "no stamp of this format"
        if stamp["root"] != os.getcwd():
            return None, f"stamped in {stamp['root']}"
        running = _stage_running(stamp_path.parent / "rwlock")
        if running:
            return None, running
        if stamp["environment"] != environment():
            return None, "Python, the installed distributions, DVC_* variables or the launcher changed"
        for path, digest in stamp["hashed"].items():
            if sha256_of(path) != digest:
                return None, f"{path} changed"
        for path, recorded in stamp["stats"].items():
            if stat_of(path) != recorded:
                return None, f"{path} changed"
        for path, recorded in stamp["cache"].items():
            if stat_of(path, ctime=False) != recorded:
                return None, f"{path} changed"
        return int(stamp["stages"]), ""
    except (OSError, ValueError, KeyError, TypeError, NotStampable) as error:
        return None, f"no usable stamp ({type(error).__name__}: {error})"


def _stage_running(rwlock: Path) -> str:
    """Which live process holds DVC's per-stage lock ("" when none): DVC runs a stage's command with the
    repository lock released and its deps and outs in ``.dvc/tmp/rwlock``; while one runs, its files are
    changing, and DVC itself would stop at the lock. Entries of dead processes DVC removes, and so are
    not counted."""
    try:
        lock = json.loads(rwlock.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return ""
    for mode in ("read", "write"):
        for path, holders in lock.get(mode, {}).items():
            for holder in holders if isinstance(holders, list) else [holders]:
                pid = int(holder["pid"])
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    continue
                except PermissionError:
                    pass
                return f"{path} is locked ({mode}) by running process {pid}"
    return ""


def filesystem_now(folder: Path) -> int:
    """The file system's clock (ns): the ctime of a file made now (the coarse clock files are stamped by)."""
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / f"almanac-clock-{os.getpid()}"
    with open(probe, "wb") as handle:
        now = os.fstat(handle.fileno()).st_ctime_ns
    probe.unlink()
    return now


def collect(repo: Any, before_ns: int) -> dict[str, Any]:
    """The stamp of ``repo`` (an open ``dvc.repo.Repo`` whose no-op repro just ended); NotStampable when an
    entry is not plainly local or changed after ``before_ns`` (the file-system time before DVC started)."""
    root = os.path.abspath(repo.root_dir)
    stages = list(repo.index.stages)
    hashed: set[str] = {os.path.join(root, "params.yaml"), *_config_files(repo, root)}
    stats: dict[str, Stat | None] = {}
    cache: dict[str, Stat | None] = {}
    outs: set[str] = set()
    for dvcfile in {os.path.abspath(stage.dvcfile.path): stage.dvcfile for stage in stages}.values():
        hashed.update(_stage_files(dvcfile))
    for stage in stages:
        for dep in stage.deps:
            if type(dep).__name__ == "ParamsDependency":
                hashed.add(os.path.abspath(dep.fs_path))
            elif type(dep).__name__ == "Dependency" and dep.fs.protocol == "local":
                _walk_into(os.path.abspath(dep.fs_path), stats)
            else:
                raise NotStampable(f"{stage.addressing}: dep {dep} of type {type(dep).__name__}")
        for out in stage.outs:
            if type(out).__name__ != "Output" or out.fs.protocol != "local":
                raise NotStampable(f"{stage.addressing}: out {out} of type {type(out).__name__}")
            path = os.path.abspath(out.fs_path)
            outs.add(path)
            _walk_into(path, stats)
            if out.use_cache and out.hash_info:
                for object_path in _cache_objects(out):
                    cache[object_path] = stat_of(object_path, ctime=False)
    for folder in _stage_file_folders(repo, root, outs):
        stats[folder] = stat_of(folder)
        hashed.update(os.path.join(folder, name) for name in (".gitignore", ".dvcignore"))
    digests = {path: sha256_of(path) for path in sorted(hashed)}
    ctimes: list[tuple[str, int | None]] = [(path, found[2]) for path, found in stats.items() if found]
    ctimes.extend((path, _ctime_ns(path)) for path in hashed)  # compared by bytes, checked for races too
    # cache objects as DVC's state sees them, (inode, mtime, size): content-addressed, and a shared cache's
    # other users change their ctime (DVC protects each object it links with a chmod)
    ctimes.extend((path, found[1]) for path, found in cache.items() if found is not None)
    racy = [path for path, ctime in ctimes if ctime is not None and ctime >= before_ns]
    if racy:
        raise NotStampable(f"changed while DVC ran: {racy[0]}")
    return {
        "format": FORMAT,
        "root": root,
        "stages": len(stages),
        "environment": environment(),
        "hashed": digests,
        "stats": dict(sorted(stats.items())),
        "cache": dict(sorted(cache.items())),
    }


def _ctime_ns(path: str) -> int | None:
    try:
        return os.stat(path).st_ctime_ns  # a hashed file is read through a symlink: its target's time
    except FileNotFoundError:
        return None


def _stage_files(dvcfile: Any) -> Iterator[str]:
    yield os.path.abspath(dvcfile.path)
    lockfile = getattr(dvcfile, "_lockfile", None)
    if lockfile is not None:
        yield os.path.abspath(lockfile.path)
    if type(dvcfile).__name__ == "ProjectFile":
        import yaml

        # dvc.yaml's own `vars` files are read for interpolation
        with open(dvcfile.path, encoding="utf-8") as handle:
            contents = yaml.load(handle, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) or {}
        for entry in contents.get("vars", []) or []:
            if isinstance(entry, str):
                yield os.path.join(os.path.dirname(os.path.abspath(dvcfile.path)), entry.split(":")[0])


def _walk_into(path: str, stats: dict[str, Stat | None]) -> None:
    """``path``'s stat and, for a directory, every entry below it (symlinks refused)."""
    found = stat_of(path)
    stats[path] = found
    if found is None or not found[4]:
        return
    with os.scandir(path) as entries:
        children = [entry.path for entry in entries]
    for child in children:
        _walk_into(child, stats)


def _cache_objects(out: Any) -> list[str]:
    """The cache files DVC's ``changed_cache`` checks for ``out``: its object, or a tree's and its entries."""
    cache = out.cache
    obj = out.get_obj()
    if obj is None:
        raise NotStampable(f"{out}: no cache object")
    paths = [cache.oid_to_path(obj.oid)]
    if hasattr(obj, "as_list") or type(obj).__name__ == "Tree":
        paths.extend(cache.oid_to_path(hash_info.value) for _, _, hash_info in obj)
    return paths


def _stage_file_folders(repo: Any, root: str, outs: set[str]) -> Iterator[str]:
    """The directories DVC walks for stage files (index.collect_files): not ignored by git or by
    .dvcignore (subrepos are walked: conservative), not an out (an out's tree is stamped whole)."""
    scm = repo.scm
    ignore = repo.dvcignore
    pending = [root]
    while pending:
        folder = pending.pop()
        yield folder
        with os.scandir(folder) as entries:
            subfolders = [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
        for sub in subfolders:
            if sub in outs or ignore.is_ignored_dir(sub, ignore_subrepos=False):
                continue
            if scm.is_ignored(sub + os.sep):
                continue
            pending.append(sub)


def _config_files(repo: Any, root: str) -> Iterable[str]:
    """DVC's config files (every level) and git's ignore inputs beyond the .gitignore files."""
    dvc_dir = os.path.join(root, ".dvc")
    found = [os.path.join(dvc_dir, "config"), os.path.join(dvc_dir, "config.local")]
    config = getattr(repo, "config", None)
    files = getattr(config, "files", None)
    if isinstance(files, dict):
        found.extend(os.path.abspath(path) for path in files.values())
    home = os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    git_files = [
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
        os.path.join(xdg, "git", "ignore"),
        "/etc/gitconfig",
    ]
    git_files.extend(_git_dir_files(os.path.join(root, ".git")))
    found.extend(git_files)
    for config_path in git_files:
        try:
            text = Path(config_path).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        found.extend(
            os.path.expanduser(match.strip().strip('"'))
            for match in re.findall(r"(?im)^\s*excludesfile\s*=\s*(.+)$", text)
        )
    return found


def _git_dir_files(dot_git: str) -> list[str]:
    """git's config and info/exclude of this work tree (a linked worktree's .git is a file naming its dir)."""
    if os.path.isfile(dot_git):
        text = Path(dot_git).read_text(encoding="utf-8").strip()
        if not text.startswith("gitdir:"):
            raise NotStampable(f"{dot_git}: not a gitdir link")
        git_dir = os.path.join(os.path.dirname(dot_git), text.split(":", 1)[1].strip())
        common_file = os.path.join(git_dir, "commondir")
        common = git_dir
        if os.path.isfile(common_file):
            common = os.path.join(git_dir, Path(common_file).read_text(encoding="utf-8").strip())
        return [
            dot_git,
            os.path.join(git_dir, "config.worktree"),
            os.path.join(common, "config"),
            os.path.join(common, "info", "exclude"),
        ]
    return [os.path.join(dot_git, "config"), os.path.join(dot_git, "info", "exclude")]


def write(stamp: dict[str, Any], stamp_path: Path = STAMP) -> None:
    """Atomically (a temporary in the same folder, then a rename)."""
    stamp_path.parent.mkdir(parents=True, exist_ok=True)
    temporary = stamp_path.with_name(f".tmp-almanac-{stamp_path.name}.{os.getpid()}")
    temporary.write_text(json.dumps(stamp, separators=(",", ":")), encoding="utf-8")
    os.replace(temporary, stamp_path)


def stamp_no_ops(
    no_stage_ran: Callable[[], bool], before_ns: int, after_a_build: Callable[[list[Any]], Any] | None = None
) -> None:
    """Make DVC's ``reproduce`` write the stamp when ``no_stage_ran()`` after it, taken inside ``reproduce``
    (repository locked, its index still built); otherwise ``after_a_build(steps)`` (noop_recheck).
    A stamp that cannot be taken is no stamp: the next run takes DVC's path; the repro never depends on it."""
    from dvc.repo import reproduce as module

    run_steps = getattr(module, "_reproduce", None)
    if not callable(run_steps):
        return

    @functools.wraps(run_steps)
    def run_and_stamp(steps: list[Any], *args: Any, **kwargs: Any) -> Any:
        result = run_steps(steps, *args, **kwargs)
        if steps and no_stage_ran():
            try:
                write(collect(steps[0].repo, before_ns))
            except Exception:  # an optimisation: never fails the repro
                forget()
        elif steps and after_a_build is not None:
            after_a_build(steps)
        return result

    # Repo.reproduce (locked) calls the module global _reproduce with the planned steps
    module._reproduce = run_and_stamp


def main() -> int:
    """``python -m almanac.core.noop_stamp``: will the next ``make repro`` take the fast path, or why not."""
    stages, difference = check()
    print(f"fast path: {stages} stages up to date" if stages is not None else f"DVC's path: {difference}")
    return 0


def forget(stamp_path: Path = STAMP) -> None:
    """Drop the stamp: a run that may change anything (any DVC path) makes it stale before it ends."""
    with contextlib.suppress(FileNotFoundError):
        stamp_path.unlink()


if __name__ == "__main__":
    sys.exit(main())
