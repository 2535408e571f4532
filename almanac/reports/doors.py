"""Where ``almanac publish`` and ``almanac report --out`` may write: never over the project or home.

A release or report folder is swapped in whole, and ``--force`` moves an old one aside, so a wrong
``--out`` could rename a home folder, ``stages/`` or ``.venv`` away. These are refused with or without
``--force``, after resolving ``..`` and symlinked parents:

- ``/``, the home folder and every folder above it;
- the project root and every folder above it;
- every path git tracks in the project, and every folder holding one (``stages/``, ``dvc.yaml``, ...);
- anything inside the project's ``data/``, ``.dvc/`` or ``.git/``;
- the virtualenv this process runs in (and the project's ``.venv``), inside it or holding it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROTECTED = ("data", ".dvc", ".git")  # the project's DVC-tracked data and its repositories


def checked_out(out: Path, project: Path, option: str = "--out") -> Path:
    """The absolute folder for ``out``; ValueError naming the door when writing there could harm."""
    if out.is_symlink():
        raise ValueError(f"{option} {out} is a symlink: give the folder it points to, not the link")
    target = out.resolve()
    reason = refused_reason(target, project.resolve())
    if reason:
        raise ValueError(f"{option} {out} {reason}: refusing to write there (with or without --force)")
    return target


def refused_reason(target: Path, root: Path) -> str | None:
    """Why ``target`` (resolved) may not be written or replaced, or None when it may."""
    home = Path.home().resolve()
    if home.is_relative_to(target):
        return f"would replace the home folder {home}"
    if root.is_relative_to(target):
        return f"would replace the project folder {root}"
    for name in PROTECTED:
        protected = (root / name).resolve()
        if target.is_relative_to(protected) or protected.is_relative_to(target):
            return f"is inside the project's {name}/ ({protected})"
    for venv in virtualenvs(root):
        if target.is_relative_to(venv) or venv.is_relative_to(target):
            return f"is or holds the virtualenv {venv}"
    if target.is_relative_to(root):
        relative = target.relative_to(root).as_posix()
        files, folders = tracked_paths(root)
        if relative in files:
            return f"is the git-tracked file {relative}"
        if relative in folders:
            return f"holds git-tracked files ({relative}/)"
    return None


def virtualenvs(root: Path) -> list[Path]:
    """This process's virtualenv (when it runs in one) and the project's ``.venv``, resolved."""
    found = [root / ".venv"]
    if sys.prefix != sys.base_prefix:
        found.append(Path(sys.prefix))
    if os.environ.get("VIRTUAL_ENV"):
        found.append(Path(os.environ["VIRTUAL_ENV"]))
    return [path.resolve() for path in found]


def tracked_paths(root: Path) -> tuple[set[str], set[str]]:
    """Files git tracks below ``root`` (relative, POSIX) and every folder holding one (empty outside git)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z"], cwd=root, capture_output=True, check=True
        ).stdout.decode("utf-8", errors="surrogateescape")
    except (OSError, subprocess.CalledProcessError):
        return set(), set()
    files = {name for name in listed.split("\0") if name}
    folders = {parent.as_posix() for name in files for parent in Path(name).parents if parent != Path()}
    return files, folders
