"""SHA-256 digests of the files the incremental dedup checks, remembered between runs by their stat.

Before it reuses anything, the incremental dedup checks every old crawl month's signature file and
ingest files, every band segment and every corpus part it leaves in place against the digests its
manifest recorded: reading them all again would cost a pass over the whole archive on every added
month (~0.8 CPU s of ~6 at 200k articles over 8 months). So a digest is remembered in
``data/cache/dedup_file_digests.json`` (gitignored, neither a DVC output nor a dep: deleting it only
costs the digests again) with the file's size, inode, mtime and ctime, and a file whose stat is the one
recorded is taken to hold the recorded bytes, the rule DVC's own state and git's index use. Any write,
copy, checkout or ``touch`` changes the ctime (which no tool can set back), so the file is read again.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from almanac.core.io import atomic_path
from almanac.core.layout.paths import DATA


def cache_path() -> Path:
    return DATA / "cache" / "dedup_file_digests.json"


_known: dict[str, list[int | str]] = {}
_loaded: list[Path] = []


def _stat_key(status: os.stat_result) -> list[int | str]:
    return [status.st_size, status.st_ino, status.st_mtime_ns, status.st_ctime_ns]


def digest(path: Path) -> str:
    """SHA-256 of a file, 128 bits of it (SHA-256 runs in hardware here, about twice BLAKE2b's speed),
    from the remembered digests when the file's stat is the one recorded with it."""
    _load()
    name = os.path.abspath(path)  # no symlink resolution: stat below follows the path as given
    status = path.stat()
    entry = _known.get(name)
    if entry is not None and entry[:4] == _stat_key(status):
        return str(entry[4])
    with path.open("rb") as handle:
        found = hashlib.file_digest(handle, "sha256").hexdigest()[:32]
    if path.stat().st_ctime_ns == status.st_ctime_ns:  # not written while it was read
        _known[name] = [*_stat_key(status), found]
    return found


def _load() -> None:
    where = Path(os.path.abspath(cache_path()))
    if _loaded == [where]:
        return
    _known.clear()
    _loaded[:] = [where]
    try:
        stored = json.loads(where.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(stored, dict):
        _known.update({key: value for key, value in stored.items() if isinstance(value, list)})


def remember() -> None:
    """Write the remembered digests of files that still exist (a failure to write costs only speed)."""
    if not _loaded:
        return
    alive = {name: entry for name, entry in _known.items() if Path(name).is_file()}
    try:
        with atomic_path(_loaded[0]) as temp:
            temp.write_text(json.dumps(alive, sort_keys=True), encoding="utf-8")
    except OSError:
        return
