"""What a month is made of in the project tree, for ``almanac month add`` / ``remove`` (almanac/cli_month.py).

Every edit here is surgical and can be undone exactly: a params.yaml list line is swapped for another and its
original kept, a ``dvc.lock`` entry is cut out as the lines DVC wrote, a ``.gitignore`` loses only the lines
that name the month. Removal never follows a symlink (a link is unlinked, never entered) and removes only what
the manifest written at ``add`` time, or the month's own declared outputs, name.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Final

from almanac.core.params import RAW_SOURCES
from almanac.pipeline.declare import Stage
from almanac.pipeline.render import upstream

SOURCES: Final = RAW_SOURCES  # the raw sources a month may have (`--empty` names them)
# Folders never walked when looking for a month's files: git's, the environments', DVC's cache.
SKIPPED: Final = frozenset({".git", ".venv", ".mypy_cache", ".ruff_cache", ".pytest_cache", "cache", "tmp"})


def list_line(key: str, items: Sequence[str]) -> str:
    """``key: ["a", "b"]``: a params.yaml list written on one line, as the shipped file writes them."""
    return f"{key}: [{', '.join(f'{chr(34)}{item}{chr(34)}' for item in items)}]"


def mapping_line(key: str, lists: Mapping[str, Sequence[str]]) -> str:
    """``key: {a: ["x"], b: []}``: a params.yaml mapping of lists written on one line."""
    entries = ", ".join(
        f"{name}: {list_line(name, items).partition(': ')[2]}" for name, items in lists.items()
    )
    return f"{key}: {{{entries}}}"


def replace_top_level_line(text: str, key: str, line: str) -> tuple[str, str]:
    """``text`` with its top-level ``key:`` entry (its line, and the ``- item`` lines of a block list or the
    indented lines of a block mapping) replaced by ``line``, and the text it replaced (to put back as it
    was). ValueError unless there once."""
    pattern = re.compile(rf"^{re.escape(key)}:[^\n]*(?:\n(?:[ \t]+[^\n]*|-[^\n]*))*", re.MULTILINE)
    found = pattern.findall(text)
    if len(found) != 1:
        raise ValueError(f"params.yaml: no one top-level {key} list to edit")
    return pattern.sub(lambda _: line, text, count=1), found[0]


def month_stages(stages: Sequence[Stage]) -> list[Stage]:
    """The per-month stages that run over ``months`` or a list derived from it (every foreach stage)."""
    return [stage for stage in stages if stage.per_month]


def month_local(stages: Sequence[Stage]) -> list[Stage]:
    """The per-month stages whose whole upstream is per-month too: what a new month builds without any
    cross-month stage (its ingest, its signatures, its GDELT download and ingest, ...)."""
    local: list[Stage] = []
    for stage in stages:  # declaration order is an order of the DAG: upstream first
        if stage.per_month and all(other in local for other in upstream(stage, stages)):
            local.append(stage)
    return local


def month_outputs(stages: Sequence[Stage], month: str) -> list[Path]:
    """Every output the per-month stages write for ``month``."""
    return [path for stage in month_stages(stages) for path in stage.outputs(month)]


def drop_lock_entries(lock_text: str, month: str) -> tuple[str, list[str]]:
    """``dvc.lock`` without the entries of ``<stage>@<month>`` (the lines DVC wrote for them, cut out whole),
    and the names of the entries cut."""
    lines = lock_text.split("\n")
    kept: list[str] = []
    dropped: list[str] = []
    skipping = False
    for line in lines:
        if line.startswith("  ") and not line.startswith("   ") and line.rstrip().endswith(":"):
            name = line.strip()[:-1]
            skipping = name.endswith(f"@{month}")
            if skipping:
                dropped.append(name)
        elif not line.startswith("  "):
            skipping = False
        if not skipping:
            kept.append(line)
    return "\n".join(kept), dropped


def lock_has_stages(lock_text: str) -> bool:
    """Whether a ``dvc.lock`` text still has a stage entry (an indented ``name:`` under ``stages:``)."""
    return any(line.startswith("  ") and not line.startswith("   ") for line in lock_text.split("\n"))


def walk(root: Path) -> Iterator[Path]:
    """Every path under ``root`` (symlinks listed, never entered), skipping SKIPPED folders."""
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(name for name in dirs if name not in SKIPPED)
        base = Path(folder)
        for name in [*dirs, *sorted(files)]:
            yield base / name


def naming(root: Path, month: str) -> list[Path]:
    """The paths under ``root`` whose own name contains ``month`` (files and folders of that month)."""
    return [path for path in walk(root) if month in path.name]


def gitignores(root: Path) -> list[Path]:
    return [path for path in walk(root) if path.name == ".gitignore" and not path.is_symlink()]


def month_lines(path: Path, month: str) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if month in line]


def drop_gitignore_lines(path: Path, month: str, keep: Iterable[str]) -> bool:
    """Remove ``path``'s lines that name ``month`` and are not in ``keep``; True when it is then empty."""
    kept_before = set(keep)
    text = path.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if month not in line or line in kept_before]
    rest = "\n".join(lines) + ("\n" if lines else "")
    if rest != text:
        path.write_text(rest, encoding="utf-8")
    return not lines


def remove_path(path: Path) -> bool:
    """Remove ``path`` without following a symlink: a link (to a file or a folder) is unlinked, a real folder
    is removed with its contents (shutil.rmtree never enters a link inside it). False if nothing is there."""
    if path.is_symlink() or path.is_file():
        path.unlink()
        return True
    if path.is_dir():
        shutil.rmtree(path)
        return True
    return False


def place_files(source: Path, target: Path) -> list[Path]:
    """Put every regular file of ``source`` into the new folder ``target``: a hard link where the two share a
    file system (no bytes copied, the user's file untouched), else a copy. Returns the files placed.
    A symlink or a sub-folder in ``source`` is refused, not followed: raw input is files."""
    if not source.is_dir():
        raise ValueError(f"{source} is not a folder")
    if target.exists() or target.is_symlink():
        raise ValueError(f"{target} exists already: the tool places a month's raw files only in a new folder")
    entries = sorted(source.iterdir())
    odd = [entry.name for entry in entries if entry.is_symlink() or not entry.is_file()]
    if odd:
        raise ValueError(f"{source}: {odd} are not regular files (a raw folder holds files only)")
    if not entries:
        raise ValueError(f"{source} holds no file (use --empty for a month with no data on purpose)")
    target.mkdir(parents=True)
    return [place_file(entry, target / entry.name) for entry in entries]


def place_file(source: Path, target: Path) -> Path:
    """``target`` as a hard link to the regular file ``source``, or a copy across file systems; never over
    an existing path."""
    if target.exists() or target.is_symlink():
        raise ValueError(f"{target} exists already: the tool never overwrites a file it did not create")
    if source.is_symlink() or not source.is_file():
        raise ValueError(f"{source} is not a regular file")
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)
    return target
