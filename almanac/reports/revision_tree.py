"""A folder of a commit (its released splits), laid out in a scratch folder from git objects and the cache.

``DVCFileSystem(rev=...)`` builds the revision's whole stage index (every stage and output of dvc.yaml and
dvc.lock) before it lists one folder: about half of what an ``almanac diff`` of two commits costs on the
sample. The splits are a few DVC outputs, so this module reads dvc.lock at the commit, the ``.dir``
listings of the outputs under the folder, and links each file to its cache object (git-tracked files are
written from their blobs, which come first, as DVCFileSystem reads git first). The tables are then read from
local files. A missing listing or object raises FileNotFoundError, as DVCFileSystem does.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from almanac.reports.revision_values import RevisionFiles, cache_object, git_files, git_objects


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder + "/")


def _dvc_files(files: RevisionFiles, folder: str) -> dict[str, Path]:
    """Each file of the DVC outputs at or under ``folder`` (or the part of an output above it that is
    under it), mapped to its cache object."""
    found: dict[str, Path] = {}
    for out_path, out in files.lock_outs().items():
        if not (_under(out_path, folder) or _under(folder, out_path)):
            continue
        location = cache_object(files.cache_dir, out, directories=True)
        if location is None:
            raise FileNotFoundError(f"{out_path} has no hash in dvc.lock")
        if not str(out.get("md5", "")).endswith(".dir"):
            if _under(out_path, folder):
                found[out_path] = location
            continue
        listing = json.loads(location.read_text())  # FileNotFoundError: the listing is not in the cache
        for entry in listing:
            path = f"{out_path}/{entry['relpath']}"
            if _under(path, folder):
                found[path] = cache_object(files.cache_dir, {**out, "md5": entry["md5"]}) or location
    return found


def link_folder(files: RevisionFiles, folder: str, target: Path) -> None:
    """Lay out ``folder`` of the revision under ``target`` (same relative paths): DVC outputs as symlinks to
    their cache objects, git-tracked files (which take precedence) written from their blobs."""
    in_git = [path for path in git_files(files.repo, files.commit, folder)]
    blobs = git_objects(files.repo, files.commit, in_git)
    for path, location in _dvc_files(files, folder).items():
        if path in blobs:
            continue
        if not location.is_file():
            raise FileNotFoundError(f"the cache object of {path} ({location}) is missing")
        link = target / path
        link.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(location, link)
    for path, content in blobs.items():
        if content is not None:
            (target / path).parent.mkdir(parents=True, exist_ok=True)
            (target / path).write_bytes(content)
