"""A per-month ingest stage that finds no raw file stops, unless its month is empty on purpose; a raw
file that is not a regular file is rejected, never opened.

A month whose raw folder is missing or empty (a download that never ran, a raw_dir typo, a month added to
params before its files) used to build into empty outputs and then empty splits, which look the same as a
month whose every article was filtered out. Now the stage fails with one line naming the folder; a month
that really has no data is listed for its source in ``params.yaml: empty_months`` and then builds empty.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from almanac.core.params import empty_months
from almanac.core.stage import StageError


class NoRawInput(StageError):
    """An ingest stage found no raw input: for a per-month stage, a month not empty for its source."""


def check_raw_files(folder: Path, files: int, month: str, params: Mapping[str, Any], source: str) -> None:
    """Raise :class:`NoRawInput` when ``files`` (the input files of ``source`` found in ``folder``) is 0,
    unless ``month`` is in ``empty_months.<source>``."""
    if files or month in empty_months(params, source):
        return
    if not folder.exists():
        state = "does not exist"
    elif not folder.is_dir():
        state = "is not a folder"
    else:
        state = "holds no input files"
    raise NoRawInput(
        f"no raw input for {month}: {folder} {state}; if {month} has no data on purpose, "
        f"list it in params.yaml empty_months.{source}"
    )


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a folder"),
)


def non_regular_kind(path: Path) -> str | None:
    """What ``path`` is when it is not a regular file ("a FIFO", "a socket", ...), else None.

    Decided by ``stat``, which never opens the file: opening a FIFO with no writer blocks forever, and a
    device can stream without end. Symlinks are followed (DVC may link its cache into the workspace); a
    dangling link raises FileNotFoundError, a fault of the folder that stops the stage with its name.
    """
    mode = path.stat().st_mode
    if stat.S_ISREG(mode):
        return None
    return next((kind for test, kind in _SPECIAL_KINDS if test(mode)), "not a regular file")
