"""Where ``almanac publish`` may write, how a new release folder replaces an old one, and its checks.

Publishing never deletes what it did not create. The release is built in a fresh staging folder beside
the target and renamed into place; an existing target is replaced only when it is empty or when its
marker file says it is an earlier publish of the same style and scope. With ``--force`` another folder
this tool made (a release or a report: its marker file) is moved aside (renamed, not deleted); anything
else is refused, and so are the doors of ``almanac.reports.doors`` (home, the project, .venv, ...).
Symlinks are never followed: an ``--out`` that is one is refused, and a link inside an old release is
removed as a link. ``almanac verify`` reads nothing through a symlink and takes no manifest path
outside the folder; any odd manifest entry (".", "./x", absolute, "..") is reported, not followed.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from almanac.core.io import write_json
from almanac.reports.doors import checked_out

MARKER = ".almanac-publish.json"
REPORT_MARKER = ".almanac-report.json"  # written by `almanac report --out` (almanac.reports.write)
MANIFEST = "manifest.json"
TOOL = "almanac publish"
REPORT_TOOL = "almanac report"
STAGING_INFIX = ".publish-"
STAGING = "staging.json"
STALE_AFTER_S = 2 * 86400.0  # a staging holder this old is stale even if its pid runs (pids are reused)
FILE_MODE = 0o644  # a lab shares the release: readable by all, as a plain `cp -r` would leave it
DIR_MODE = 0o755


def checked_target(out: Path, project: Path) -> Path:
    """The absolute release folder for ``out``; ValueError where publishing there could harm the project
    or the user (``almanac.reports.doors``: /, home, the project and its tracked files, data/, .venv, ...).

    Paths are resolved first (``..`` and symlinked parents), so ``./data/../data/x`` or a link into
    ``data/`` is caught like ``data/x``.
    """
    return checked_out(out, project)


def check_replaceable(target: Path, style: str, scope: str, force: bool) -> None:
    """Refuse (ValueError) a target that publish may not replace; checked before and at the swap.

    Replaced: nothing there, an empty folder, or an earlier publish of the same style and scope. With
    ``--force`` also (moved aside) any other folder this tool made, a release or a report (its marker
    file says so); a folder without a marker is never moved, with or without ``--force``.
    """
    if target.is_symlink():
        raise ValueError(f"{target} is a symlink: refusing to publish through it")
    if not os.path.lexists(target) or _is_empty_dir(target) or _previous(target, style, scope):
        return
    what = _describe(target)
    if not made_by_tool(target):
        raise ValueError(
            f"{target} {what}, not made by `almanac publish` or `almanac report` "
            f"(no {MARKER} or {REPORT_MARKER}): "
            "refusing to replace or move it, with or without --force; publish to another folder"
        )
    if force:
        return
    raise ValueError(
        f"{target} {what}, not an earlier `almanac publish` of {style} {scope}: refusing to replace it "
        "(pass --force to move it aside and publish there)"
    )


def made_by_tool(folder: Path) -> bool:
    """Whether ``folder`` is a real folder holding the marker file of a publish or a report."""
    if folder.is_symlink() or not folder.is_dir():
        return False
    for name, tool in ((MARKER, TOOL), (REPORT_MARKER, REPORT_TOOL)):
        data = _read_marker(folder / name)
        if isinstance(data, dict) and data.get("tool") == tool:
            return True
    return False


def _read_marker(path: Path) -> Any:
    if path.is_symlink() or not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


@contextmanager
def staging_folder(target: Path) -> Iterator[Path]:
    """A fresh folder beside ``target`` to build the release in; removed if the build fails.

    It is ``.<name>.publish-XXXX/release`` in a holder whose ``staging.json`` names this process (pid
    and start time), so a later publish can tell a killed publish's leftovers from a running one's and
    removes them (:func:`remove_stale_staging`); nothing of the holder reaches the release.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_staging(target.parent)
    holder = Path(tempfile.mkdtemp(prefix=f".{target.name}{STAGING_INFIX}", dir=target.parent))
    try:
        write_json({"tool": TOOL, "pid": os.getpid(), "started": _started(os.getpid())}, holder / STAGING)
        (holder / "release").mkdir(mode=0o700)
        yield holder / "release"
    finally:
        if os.path.lexists(holder) and not holder.is_symlink():
            shutil.rmtree(holder)


def remove_stale_staging(parent: Path, max_age_s: float = STALE_AFTER_S) -> list[Path]:
    """Remove the staging holders of dead publishes in ``parent``; returns what was removed.

    Only real folders named ``.<name>.publish-*``, owned by this user, holding our ``staging.json``;
    stale when that process is gone (its pid ended, or now runs another program) or the holder is older
    than ``max_age_s``. Symlinks are never followed: a linked holder or marker is left alone.
    """
    removed: list[Path] = []
    for entry in sorted(parent.iterdir()) if parent.is_dir() else []:
        if not (entry.name.startswith(".") and STAGING_INFIX in entry.name):
            continue
        try:
            info = os.lstat(entry)
        except OSError:
            continue
        if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
            continue
        data = _read_marker(entry / STAGING)
        if not isinstance(data, dict) or data.get("tool") != TOOL:
            continue
        pid, started = data.get("pid"), data.get("started")
        alive = isinstance(pid, int) and isinstance(started, int | float) and _started(pid) == started
        if alive and time.time() - info.st_mtime < max_age_s:
            continue
        shutil.rmtree(entry)  # rmtree unlinks links inside without following them
        removed.append(entry)
    return removed


def _started(pid: int) -> float | None:
    """When process ``pid`` started (None when none runs), to tell a reused pid from the original."""
    import psutil

    try:
        return float(psutil.Process(pid).create_time())
    except (psutil.Error, ValueError):
        return None


def write_marker(folder: Path, style: str, scope: str) -> None:
    write_json({"tool": TOOL, "style": style, "scope": scope}, folder / MARKER)


def write_report_marker(folder: Path, style: str, scope: str) -> None:
    """Mark a folder ``almanac report --out`` made: a later report (or ``publish --force``) may replace it."""
    write_json({"tool": REPORT_TOOL, "style": style, "scope": scope}, folder / REPORT_MARKER)


def checked_report_out(out: Path, project: Path) -> Path:
    """The absolute folder for ``almanac report --out``: past the doors, and nothing there, an empty
    folder or an earlier ``almanac report`` (its marker); ValueError otherwise. The report swaps in a
    whole new folder, so anything else there would be lost."""
    target = checked_out(out, project)
    if not os.path.lexists(target) or _is_empty_dir(target):
        return target
    if not target.is_dir():
        raise ValueError(f"--out {out} is a file, not a report folder: refusing to replace it")
    data = _read_marker(target / REPORT_MARKER)
    if not (isinstance(data, dict) and data.get("tool") == REPORT_TOOL):
        raise ValueError(
            f"--out {out} holds files that are not an earlier report (no {REPORT_MARKER}): "
            "refusing to replace them"
        )
    return target


def share_modes(folder: Path) -> None:
    """Folders 0755 and files 0644: staging and atomic writes create them 0700 and 0600."""
    os.chmod(folder, DIR_MODE)
    for parent, dirs, files in os.walk(folder):
        for name in dirs:
            path = os.path.join(parent, name)
            if not os.path.islink(path):
                os.chmod(path, DIR_MODE)
        for name in files:
            path = os.path.join(parent, name)
            if not os.path.islink(path):
                os.chmod(path, FILE_MODE)


def swap_in(staging: Path, target: Path, style: str, scope: str, force: bool) -> Path | None:
    """Rename ``staging`` to ``target``; returns where an unrelated old target was moved (``--force``)."""
    check_replaceable(target, style, scope, force)
    if not os.path.lexists(target) or _is_empty_dir(target):
        os.replace(staging, target)  # a rename onto an empty folder replaces it
        return None
    if _previous(target, style, scope):
        # Our own earlier release: moved into a holder folder first, so the new one appears at once,
        # then removed; rmtree unlinks symlinks inside it without following them.
        holder = Path(tempfile.mkdtemp(prefix=f".{target.name}.old-", dir=target.parent))
        os.replace(target, holder / target.name)
        os.replace(staging, target)
        shutil.rmtree(holder)
        return None
    aside = _free_name(target)
    os.replace(target, aside)
    os.replace(staging, target)
    print(f"almanac publish: moved the existing {target} aside to {aside} (--force)", file=sys.stderr)
    return aside


def _previous(target: Path, style: str, scope: str) -> bool:
    marker = target / MARKER
    if target.is_symlink() or not target.is_dir() or marker.is_symlink() or not marker.is_file():
        return False
    try:
        data = json.loads(marker.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data == {"tool": TOOL, "style": style, "scope": scope}


def _is_empty_dir(path: Path) -> bool:
    return not path.is_symlink() and path.is_dir() and not any(path.iterdir())


def _describe(target: Path) -> str:
    if not target.is_dir():
        return "exists and is not a folder"
    marker = target / MARKER
    if marker.is_file() and not marker.is_symlink():
        try:
            data = json.loads(marker.read_text(encoding="utf-8"))
            return f"holds the publish of {data.get('style')} {data.get('scope')}"
        except (OSError, ValueError, AttributeError):
            pass
    return "is a folder with files"


def _free_name(target: Path) -> Path:
    for number in range(1, 10_000):
        suffix = ".before-publish" if number == 1 else f".before-publish-{number}"
        candidate = target.with_name(target.name + suffix)
        if not os.path.lexists(candidate):
            return candidate
    raise OSError(f"no free name to move {target} aside")


def sha256_file(path: Path) -> str:
    """SHA-256 of a regular file, opened without following a symlink."""
    digest = hashlib.sha256()
    descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(descriptor, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_folder(folder: Path) -> list[str]:
    """Problems of ``folder`` against its manifest, one "path: reason" each ([] when it matches).

    The folder named may itself be reached through a link; below it nothing is followed: a manifest
    path that is absolute, has ``..`` or passes through a symlink is an error, as is any symlink.
    """
    root = folder.resolve()
    manifest_path = root / MANIFEST
    if manifest_path.is_symlink() or not manifest_path.is_file():
        raise ValueError(f"{manifest_path} is missing, or is not a regular file")
    entries = _manifest_entries(manifest_path)
    problems: list[str] = []
    reported: set[str] = set()
    for entry in entries:
        path, problem = _check_entry(root, entry)
        if problem:  # a name with control characters (a NUL, a newline) is shown quoted: one line each
            problems.append(f"{path if path.isprintable() else repr(path)}: {problem}")
            reported.add(path)
    known = {entry.get("path") for entry in entries if isinstance(entry, dict)} | {MANIFEST}
    extra = []
    for parent, dirs, files in os.walk(root):  # os.walk does not descend into linked folders
        for name in sorted(dirs + files):
            full = os.path.join(parent, name)
            relative = Path(full).relative_to(root).as_posix()
            if relative in reported:
                continue
            if os.path.islink(full):
                extra.append(f"{relative}: symlink (not followed)")
            elif name in files and relative not in known:
                kind = "" if os.path.isfile(full) else " (not a regular file)"
                extra.append(f"{relative}: not in {MANIFEST}{kind}")
    return problems + sorted(extra)


def _manifest_entries(manifest_path: Path) -> list[Any]:
    try:
        data = json.loads(manifest_path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ValueError(f"{manifest_path} is not valid JSON: {error}") from error
    files = data.get("files") if isinstance(data, dict) else None
    if not isinstance(files, list):
        raise ValueError(f"{manifest_path} has no list of files")
    return files


def _check_entry(root: Path, entry: Any) -> tuple[str, str]:
    """The entry's path and its problem ("" when the file matches)."""
    if not isinstance(entry, dict) or not isinstance(entry.get("path"), str) or not entry["path"]:
        return repr(entry)[:200], "malformed manifest entry (no path)"
    name = entry["path"]
    if not isinstance(entry.get("bytes"), int) or not isinstance(entry.get("sha256"), str):
        return name, "malformed manifest entry (no bytes or sha256)"
    relative = PurePosixPath(name)
    if relative.is_absolute() or name.startswith("/"):
        return name, "absolute path in the manifest"
    if ".." in relative.parts:
        return name, "'..' in a manifest path"
    if "\0" in name or "\\" in name or relative.as_posix() != name or not relative.parts:
        # ".", "./x", "a//b", "a/": a file's path is written one way only, and "." is the folder itself
        return name, "not a plain relative file path in the manifest"
    current = root
    mode = 0
    for position, part in enumerate(relative.parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return name, "missing"
        except OSError as error:  # a name too long, a component that is a file
            return name, f"unreadable ({error.strerror})"
        if stat.S_ISLNK(mode):
            last = position == len(relative.parts) - 1
            return name, "is a symlink (not followed)" if last else f"path goes through the symlink {part}"
    if not stat.S_ISREG(mode):
        return name, "not a regular file"
    if os.lstat(current).st_size != entry["bytes"]:
        return name, "size differs from the manifest"
    if sha256_file(current) != entry["sha256"]:
        return name, "checksum differs from the manifest"
    return name, ""
