"""Download one month of GDELT 2.0 export (and mentions) files, each checked against the masterfilelist.

Every file is taken either from a local mirror (``mirror_dir``, by file name) or from its URL, and is
only renamed into ``data/gdelt/raw/<month>/`` once its size and MD5 match the masterfilelist line. A
file already there and matching is skipped without a request. A file that still does not match after
the retries is recorded as failed (in ``MANIFEST.json`` and the metrics) while the other files of the
month are still fetched; the stage then exits non-zero naming it.

``local_dir`` takes the files as a user has them instead, with no list needed: zipped or unzipped
GDELT 2.0 exports and mentions, GDELT 1.0 daily files (``YYYYMMDD.export.CSV.zip``) and monthly
backfiles (``YYYYMM.zip``), each placed in its month by the date in its name. When a masterfilelist is
present (``masterfilelist_file``, else ``masterfilelist.txt`` in ``local_dir``; never fetched), every
file it lists is checked against its size and MD5; files it cannot list (unzipped CSVs, GDELT 1.0) are
copied with their MD5 computed and ``"listed": false`` in the manifest.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import shutil
import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import requests

from almanac.core.download import DownloadConfig, DownloadError, download_file, fetch_bytes
from almanac.core.io import write_json
from almanac.gdelt.masterlist import (
    SELECTABLE_KINDS,
    MasterFile,
    MasterlistProblem,
    month_problems,
    parse_masterfilelist,
    select_month,
)

log = logging.getLogger(__name__)
STAGE = "gdelt_download"
MANIFEST_NAME = "MANIFEST.json"
LOCAL_LIST_NAME = "masterfilelist.txt"
# File names as GDELT publishes them, zipped or not: 2.0 (YYYYMMDDHHMMSS.export|mentions.CSV), 1.0 daily
# (YYYYMMDD.export.CSV) and 1.0 backfiles (YYYYMM.zip / YYYY.zip, their member YYYYMM.csv).
_LOCAL_NAME = re.compile(
    r"^(?P<stamp>\d{14}|\d{8})\.(?P<kind>export|mentions|gkg)\.csv(?:\.zip)?$"
    r"|^(?P<backfile>\d{4}(?:\d{2})?)\.(?:zip|csv)$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class GdeltDownloadConfig:
    masterfilelist_url: str = "http://data.gdeltproject.org/gdeltv2/masterfilelist.txt"
    masterfilelist_file: str = ""  # a local copy of the list; "" = fetch masterfilelist_url
    mirror_dir: str = ""  # "" = download each URL; else copy files by name from this folder
    local_dir: str = ""  # "" = use the masterfilelist; else take the month's files from this folder
    include_mentions: bool = True
    retries: int = 6
    timeout_s: float = 60.0
    backoff_initial_s: float = 1.0
    backoff_max_s: float = 60.0

    def download_config(self) -> DownloadConfig:
        return DownloadConfig(
            retries=self.retries,
            timeout_s=self.timeout_s,
            backoff_initial_s=self.backoff_initial_s,
            backoff_max_s=self.backoff_max_s,
        )


@dataclass(frozen=True)
class FileOutcome:
    file: MasterFile
    status: str  # "fetched" | "copied" | "skipped" (already present and verified) | "failed"
    reason: str = ""  # failed only: md5_mismatch | size_mismatch | missing_from_mirror | download_failed
    detail: str = ""
    attempts: int = 0  # HTTP attempts (0 for mirror copies and skipped files)
    resumed: bool = False
    listed: bool | None = None  # local_dir only: whether a masterfilelist named (and so checked) it


@dataclass
class MonthDownload:
    month: str
    masterlist_source: str
    masterlist_files: int
    masterlist_problems: list[MasterlistProblem]
    outcomes: list[FileOutcome] = field(default_factory=list)
    removed_stale: list[str] = field(default_factory=list)
    unplaced: dict[str, str] = field(default_factory=dict)  # local_dir files of no month: name -> why

    @property
    def failed(self) -> list[FileOutcome]:
        return [outcome for outcome in self.outcomes if outcome.status == "failed"]


def read_masterfilelist(
    config: GdeltDownloadConfig,
    session: requests.Session | None = None,
    *,
    sleep: Callable[[float], None] = time.sleep,
) -> tuple[str, str]:
    """(where the list came from, its text); undecodable bytes become U+FFFD and so garbled lines."""
    if config.masterfilelist_file:
        path = Path(config.masterfilelist_file)
        return path.as_posix(), path.read_bytes().decode("utf-8", errors="replace")
    raw = fetch_bytes(config.masterfilelist_url, config.download_config(), session, sleep=sleep)
    return config.masterfilelist_url, raw.decode("utf-8", errors="replace")


def download_month(
    month: str,
    out_root: Path,
    config: GdeltDownloadConfig,
    *,
    session: requests.Session | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> MonthDownload:
    """Bring ``out_root/<month>/`` in line with the masterfilelist's files of ``month``."""
    if config.local_dir:
        return take_local_month(month, out_root, config)
    source, text = read_masterfilelist(config, session, sleep=sleep)
    files, problems = parse_masterfilelist(text)
    selected = select_month(files, month, config.include_mentions)
    result = MonthDownload(month, source, len(files), problems)
    download_config = config.download_config()
    month_dir = Path(out_root) / month
    month_dir.mkdir(parents=True, exist_ok=True)
    result.removed_stale = _remove_stale(month_dir, {f.name for f in selected})
    try:
        with nullcontext(session) if session is not None else requests.Session() as client:
            for master in selected:
                if config.mirror_dir:
                    outcome = copy_from_mirror(master, Path(config.mirror_dir), month_dir)
                else:
                    outcome = fetch_file(master, month_dir, download_config, client, sleep)
                if outcome.status == "failed":
                    log.error("%s: %s (%s)", master.name, outcome.reason, outcome.detail)
                result.outcomes.append(outcome)
    finally:  # an interrupted run still records what it finished
        write_manifest(result, month_dir / MANIFEST_NAME)
    return result


def fetch_file(
    master: MasterFile,
    month_dir: Path,
    config: DownloadConfig,
    session: requests.Session,
    sleep: Callable[[float], None],
) -> FileOutcome:
    last_problem: list[str] = []

    def verify(part: Path) -> None:
        # Checked inside the retry loop, so a corrupted transfer is fetched again within the budget.
        problem = check_file(part, master)
        if problem is not None:
            last_problem.append(problem[0])
            raise ValueError(problem[1])

    try:
        done = download_file(
            master.url,
            month_dir / master.name,
            config,
            expected_size=master.size,
            expected_digests={"md5": master.md5},
            verify=verify,
            session=session,
            sleep=sleep,
        )
    except DownloadError as error:
        reason = last_problem[-1] if last_problem else "download_failed"
        return FileOutcome(master, "failed", reason, error.reason)
    status = "skipped" if done.attempts == 0 else "fetched"
    return FileOutcome(master, status, attempts=done.attempts, resumed=done.resumed)


def copy_from_mirror(master: MasterFile, mirror_dir: Path, month_dir: Path) -> FileOutcome:
    dest = month_dir / master.name
    if dest.exists():
        if check_file(dest, master) is None:
            return FileOutcome(master, "skipped")
        dest.unlink()  # known-bad bytes must not stay where ingest would read them
    source = mirror_dir / master.name
    if not source.is_file():
        return FileOutcome(master, "failed", "missing_from_mirror", f"{source} does not exist")
    part = dest.with_name(dest.name + ".part")
    shutil.copyfile(source, part)
    problem = check_file(part, master)
    if problem is not None:
        part.unlink()
        return FileOutcome(master, "failed", problem[0], f"{source}: {problem[1]}")
    os.replace(part, dest)
    return FileOutcome(master, "copied")


def take_local_month(month: str, out_root: Path, config: GdeltDownloadConfig) -> MonthDownload:
    """``out_root/<month>/`` from the files of ``month`` in ``config.local_dir``, as the user has them."""
    local_dir = Path(config.local_dir)
    if not local_dir.is_dir():
        raise FileNotFoundError(f"gdelt_download.local_dir {local_dir} is not a folder")
    listing = Path(config.masterfilelist_file) if config.masterfilelist_file else local_dir / LOCAL_LIST_NAME
    listed: dict[str, MasterFile] = {}
    result = MonthDownload(month, "", 0, [])
    if listing.is_file():
        files, problems = parse_masterfilelist(listing.read_bytes().decode("utf-8", errors="replace"))
        listed = {f.name: f for f in files}
        result = MonthDownload(month, listing.as_posix(), len(files), problems)
    kinds = SELECTABLE_KINDS if config.include_mentions else ("export",)
    selected: list[tuple[Path, str, str]] = []
    for path in sorted(p for p in local_dir.iterdir() if p.is_file() and not p.name.startswith(".")):
        if path.name == LOCAL_LIST_NAME or path.name.endswith(".part"):
            continue
        placed = local_file_slot(path.name)
        if isinstance(placed, str):
            result.unplaced[path.name] = placed
        elif placed[1] in kinds and f"{placed[0][:4]}-{placed[0][4:6]}" == month:
            selected.append((path, *placed))
    month_dir = Path(out_root) / month
    month_dir.mkdir(parents=True, exist_ok=True)
    result.removed_stale = _remove_stale(month_dir, {path.name for path, _, _ in selected})
    try:
        for path, stamp, kind in sorted(selected, key=lambda item: (item[1], kinds.index(item[2]))):
            master = listed.get(path.name)
            if master is not None:
                outcome = replace(copy_from_mirror(master, local_dir, month_dir), listed=True)
            else:
                local = MasterFile(
                    path.stat().st_size, _md5(path), path.as_posix(), path.name, stamp, kind, 0
                )
                outcome = _copy_unlisted(local, path, month_dir)
            if outcome.status == "failed":
                log.error("%s: %s (%s)", path.name, outcome.reason, outcome.detail)
            result.outcomes.append(outcome)
    finally:
        write_manifest(result, month_dir / MANIFEST_NAME)
    return result


def local_file_slot(name: str) -> tuple[str, str] | str:
    """(time stamp of at least YYYYMM, kind) from a GDELT file name, or why it has no month."""
    match = _LOCAL_NAME.match(name)
    if match is None:
        return "not a GDELT export or mentions file name"
    stamp = match.group("stamp") or match.group("backfile")
    kind = (match.group("kind") or "export").lower()
    if len(stamp) == 4:
        return "a yearly GDELT 1.0 backfile: its rows span twelve months; split it into YYYYMM files"
    try:
        datetime.strptime(stamp[:8], "%Y%m%d" if len(stamp) >= 8 else "%Y%m")
    except ValueError:
        return f"{stamp} is not a valid date"
    return stamp, kind


def _copy_unlisted(local: MasterFile, source: Path, month_dir: Path) -> FileOutcome:
    """A file no list names: copied, then the copy checked against the source's size and MD5."""
    dest = month_dir / local.name
    if dest.exists() and check_file(dest, local) is None:
        return FileOutcome(local, "skipped", listed=False)
    part = dest.with_name(dest.name + ".part")
    shutil.copyfile(source, part)
    problem = check_file(part, local)
    if problem is not None:  # the file changed while it was copied
        part.unlink()
        return FileOutcome(local, "failed", problem[0], f"{source}: {problem[1]}", listed=False)
    os.replace(part, dest)
    return FileOutcome(local, "copied", listed=False)


def _md5(path: Path) -> str:
    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def check_file(path: Path, master: MasterFile) -> tuple[str, str] | None:
    """(reason, detail) when ``path`` is not the listed file; size first, so a short file is not hashed."""
    size = path.stat().st_size
    if size != master.size:
        return "size_mismatch", f"size {size} != listed {master.size}"
    digest = _md5(path)
    if digest != master.md5:
        return "md5_mismatch", f"md5 {digest} != listed {master.md5}"
    return None


def write_manifest(result: MonthDownload, path: Path) -> None:
    """What is on disk and verified, what failed, and the list's problems for this month.

    Attempt counts and timings stay out (they go to the metrics) so reruns write identical bytes.
    """
    files: list[dict[str, Any]] = [
        {"file": o.file.name, "kind": o.file.kind, "size": o.file.size, "md5": o.file.md5, "url": o.file.url}
        | ({} if o.listed is None else {"listed": o.listed})
        for o in sorted(result.outcomes, key=lambda o: o.file.name)
        if o.status != "failed"
    ]
    failed = [
        {"file": o.file.name, "url": o.file.url, "reason": o.reason, "detail": o.detail}
        for o in sorted(result.failed, key=lambda o: o.file.name)
    ]
    problems = [p.as_dict() for p in month_problems(result.masterlist_problems, result.month)]
    manifest: dict[str, Any] = {
        "month": result.month,
        "masterfilelist": result.masterlist_source,
        "files": files,
        "failed": failed,
        "masterfilelist_problems": problems,
    }
    if result.unplaced:
        manifest["local_files_not_placed"] = dict(sorted(result.unplaced.items()))
    write_json(manifest, path)


def download_metrics(result: MonthDownload) -> dict[str, Any]:
    """Tracked metrics: which files the month has and which failed, the same on every run. How this run
    got them (fetched, copied, found verified, resumed, attempts) is :func:`download_run_counts`."""
    outcomes = result.outcomes
    failed = sum(o.status == "failed" for o in outcomes)
    reasons: dict[str, int] = {}
    for outcome in result.failed:
        reasons[outcome.reason] = reasons.get(outcome.reason, 0) + 1
    return {
        "stage": STAGE,
        "month": result.month,
        "items_in": len(outcomes),
        "items_out": len(outcomes) - failed,
        "rejected": failed,
        "rejected_by_reason": dict(sorted(reasons.items())),
        "failed": [
            {"file": o.file.name, "reason": o.reason, "detail": o.detail}
            for o in sorted(result.failed, key=lambda o: o.file.name)
        ],
        "bytes": sum(o.file.size for o in outcomes if o.status != "failed"),
        "files_by_kind": {
            kind: sum(o.file.kind == kind for o in outcomes) for kind in ("export", "mentions")
        },
        "masterfilelist": result.masterlist_source,
        "masterfilelist_files": result.masterlist_files,
        "masterfilelist_problems": len(result.masterlist_problems),
        "masterfilelist_problems_this_month": len(month_problems(result.masterlist_problems, result.month)),
        "files_unlisted": sum(o.listed is False for o in outcomes),
        "local_files_not_placed": dict(sorted(result.unplaced.items())),
    }


def download_run_counts(result: MonthDownload) -> dict[str, float]:
    """What this run did to have the files (a rerun finds them verified in place): the run record."""
    outcomes = result.outcomes
    counts: dict[str, float] = {
        f"files_{status}": sum(o.status == status for o in outcomes)
        for status in ("fetched", "copied", "skipped")
    }
    counts["files_resumed"] = sum(o.resumed for o in outcomes)
    counts["http_attempts"] = sum(o.attempts for o in outcomes)
    counts["removed_stale"] = len(result.removed_stale)
    return counts


def _remove_stale(month_dir: Path, wanted: set[str]) -> list[str]:
    """Delete GDELT files (zips, CSVs and unfinished ``.part`` files) the selection no longer lists,
    e.g. mentions after ``include_mentions`` was switched off: ingest reads whatever is in the folder.
    Only regular files are removed, never what a symlink points to."""
    removed = []
    for path in sorted(month_dir.iterdir()):
        name = path.name.removesuffix(".part")
        stale = name.lower().endswith((".zip", ".csv")) and name not in wanted
        if stale and path.is_file() and not path.is_symlink():
            path.unlink()
            removed.append(path.name)
    return removed
