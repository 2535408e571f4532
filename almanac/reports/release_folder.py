"""Where ``almanac publish`` may write, how a new release folder replaces an old one, and its checks.

Publishing never deletes what it did not create. The release is built in a fresh staging folder beside
the target and renamed into place; an existing target is replaced only when it is empty or when its
marker file says it is an earlier publish of the same style and scope. Anything else is refused, or
with ``--force`` moved aside (renamed, not deleted). Symlinks are never followed: an ``--out`` that is
one is refused, and a link inside an old release is removed as a link. ``almanac verify`` reads
nothing through a symlink and takes no manifest path outside the folder.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any

from almanac.core.io import write_json

MARKER = ".almanac-publish.json"
MANIFEST = "manifest.json"
TOOL = "almanac publish"
FILE_MODE = 0o644  # a lab shares the release: readable by all, as a plain `cp -r` would leave it
DIR_MODE = 0o755
PROTECTED = ("data", ".dvc", ".git")  # the project's DVC-tracked data and its repositories


def checked_target(out: Path, project: Path) -> Path:
    """The absolute release folder for ``out``; ValueError where publishing there could harm the project.

    Paths are resolved first (``..`` and symlinked parents), so ``./data/../data/x`` or a link into
    ``data/`` is caught like ``data/x``.
    """
    if out.is_symlink():
        raise ValueError(f"--out {out} is a symlink: give the folder it points to, not the link")
    target = out.resolve()
    root = project.resolve()
    for name in PROTECTED:
        protected = (root / name).resolve()
        if target.is_relative_to(protected):
            raise ValueError(f"--out {out} is inside the project's {name}/ ({protected}): publish elsewhere")
    if root.is_relative_to(target):
        raise ValueError(f"--out {out} would replace the project folder {root}: publish to its own folder")
    return target


def check_replaceable(target: Path, style: str, scope: str, force: bool) -> None:
    """Refuse (ValueError) a target that publish may not replace; checked before and at the swap."""
    if target.is_symlink():
        raise ValueError(f"{target} is a symlink: refusing to publish through it")
    if not os.path.lexists(target) or force or _is_empty_dir(target) or _previous(target, style, scope):
        return
    what = _describe(target)
    raise ValueError(
        f"{target} {what}, not an earlier `almanac publish` of {style} {scope}: refusing to replace it "
        "(pass --force to move it aside and publish there)"
    )


@contextmanager
def staging_folder(target: Path) -> Iterator[Path]:
    """A fresh folder beside ``target`` to build the release in; removed if the build fails."""
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}.publish-", dir=target.parent))
    try:
        yield staging
    finally:
        if os.path.lexists(staging):
            shutil.rmtree(staging)


def write_marker(folder: Path, style: str, scope: str) -> None:
    write_json({"tool": TOOL, "style": style, "scope": scope}, folder / MARKER)


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
        if problem:
            problems.append(f"{path}: {problem}")
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
    current = root
    for position, part in enumerate(relative.parts):
        current = current / part
        try:
            mode = os.lstat(current).st_mode
        except FileNotFoundError:
            return name, "missing"
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
