"""``almanac month add`` and ``almanac month remove``: a month in one command, and out again without a trace.

``add YYYY-MM`` puts the month into ``params.yaml: months`` (the one list a user edits), places its raw files
(``--ccnews DIR``: hard links, else copies, in ``<ccnews_ingest.raw_dir>/<month>/``; ``--gdelt DIR``: into
``gdelt_download.local_dir``), lists it in ``empty_months.<SOURCE>`` for ``--empty SOURCE...``, re-renders
the derived lists of ``dvc.yaml`` and runs ``dvc repro`` (``--build all``: everything the month changes;
``month``: only the month's own stages that need no cross-month stage; ``none``). What it did is written to
a manifest (``data/cache/months/<month>.json``, never tracked) before anything is built: a failed build can
be removed.

``remove YYYY-MM`` undoes it: the month's stage outputs, its ``dvc.lock`` entries, the ``.gitignore`` lines
and folders its build created, the raw files the tool placed (never the user's: a ``--ccnews`` folder's files
are links or copies), its params lines as they were; then, when the add built cross-month stages,
``dvc repro`` brings those back to the months left (DVC's run cache restores what it has). ``git status``
is then what it was before the add. Nothing is removed through a symlink.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Final

MANIFESTS: Final = Path("data/cache/months")
BUILDS: Final = ("all", "month", "none")


def add_parser(commands: Any) -> None:
    """The ``month`` command and its ``add`` / ``remove`` subcommands."""
    month = commands.add_parser("month", help="add a month (raw files, params, build) or remove it again")
    actions = month.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add", help="add YYYY-MM: place its raw files, list it, build it")
    add.add_argument("month", help="YYYY-MM")
    add.add_argument("--ccnews", type=Path, help="folder of the month's CC-News WARC / news-please files")
    add.add_argument(
        "--gdelt", type=Path, help="folder of the month's GDELT files (needs gdelt_download.local_dir)"
    )
    add.add_argument(
        "--empty", nargs="+", default=[], metavar="SOURCE", help="sources with no data on purpose"
    )
    add.add_argument("--build", choices=BUILDS, default="all", help="what dvc repro runs (default: all)")
    add.set_defaults(run=add_month)
    remove = actions.add_parser("remove", help="remove YYYY-MM and everything its add created")
    remove.add_argument("month", help="YYYY-MM")
    remove.set_defaults(run=remove_month)


def _repro(*targets: str) -> None:
    """``dvc repro TARGETS`` as ``make repro`` runs it (almanac.core.repro: DVC's own command line in one
    process with this Python, its per-stage bookkeeping trimmed, ~0.7 s of CPU less per stage that runs); a
    failure stops with DVC's own last lines."""
    # the stages run with this interpreter (stages/python) unless the user chose another
    env = {"ALMANAC_PYTHON": sys.executable, **os.environ}
    done = subprocess.run(
        [sys.executable, "-m", "almanac.core.repro", *targets], capture_output=True, text=True, env=env
    )
    if done.returncode != 0:
        tail = " | ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        raise RuntimeError(f"dvc repro {' '.join(targets[:2])} failed: {tail}")


def _rerender(params_file: Path) -> None:
    """dvc.yaml's derived month lists (its vars) from params.yaml, as `almanac dag` renders them."""
    from almanac.core.month_lists import derived_lists, with_lists
    from almanac.core.params import load_params

    dvc_yaml = Path("dvc.yaml")
    dvc_yaml.write_text(
        with_lists(dvc_yaml.read_text(encoding="utf-8"), derived_lists(load_params(params_file))),
        encoding="utf-8",
    )


def add_month(args: argparse.Namespace) -> int:
    from almanac.core.months import parse_month
    from almanac.core.params import ccnews_months, empty_months, load_params
    from almanac.pipeline import months as m
    from almanac.pipeline.dag import STAGES

    month, params_file = args.month, Path(args.params)
    parse_month(month)
    params = load_params(params_file)
    if month in params["months"]:
        raise ValueError(f"{month} is already in params.yaml months")
    unknown = sorted(set(args.empty) - set(m.SOURCES))
    if unknown:
        raise ValueError(f"--empty {unknown}: sources are {list(m.SOURCES)}")
    manifest = MANIFESTS / f"{month}.json"
    # Everything the month's build creates must be new, so that remove can take all of it and nothing else.
    found = [path.as_posix() for path in m.naming(Path("."), month) if path != manifest]
    raw_ccnews = Path(params["ccnews_ingest"]["raw_dir"]) / month if ccnews_months(params) else None
    users = raw_ccnews if raw_ccnews is not None and not args.ccnews else None  # a raw folder placed by hand
    stray = sorted(path for path in found if not (users and Path(path).is_relative_to(users)))
    if stray or manifest.exists():
        raise ValueError(
            f"files of {month} exist already (remove them first): {stray[:5] or [str(manifest)]}"
        )
    record: dict[str, Any] = {"month": month, "placed": [], "created_dirs": [], "build": args.build}
    if raw_ccnews is not None:
        if args.ccnews:
            record["placed"] += [str(path) for path in m.place_files(args.ccnews, raw_ccnews)]
            record["created_dirs"].append(str(raw_ccnews))
        elif "ccnews" in args.empty:
            if not raw_ccnews.exists():  # the ingest stage's dep: an empty folder git never sees
                raw_ccnews.mkdir(parents=True)
                record["created_dirs"].append(str(raw_ccnews))
        elif not raw_ccnews.is_dir():
            raise ValueError(f"no CC-News folder {raw_ccnews}: give --ccnews DIR, or --empty ccnews")
    if args.gdelt:
        local = params["gdelt_download"].get("local_dir", "")
        if not local:
            raise ValueError(
                "--gdelt needs gdelt_download.local_dir (the sample reads a masterfilelist and its mirror)"
            )
        for source in sorted(args.gdelt.iterdir()):  # the download stage takes the month's by their names
            record["placed"].append(str(m.place_file(source, Path(local) / source.name)))
    text = params_file.read_text(encoding="utf-8")
    text, record["months_line"] = m.replace_top_level_line(
        text, "months", m.list_line("months", sorted([*params["months"], month]))
    )
    if args.empty:  # the month goes into the named sources' lists only (empty_months is per source)
        empty = {source: empty_months(params, source) for source in m.SOURCES}
        empty.update({source: sorted({*empty[source], month}) for source in args.empty})
        text, record["empty_line"] = m.replace_top_level_line(
            text, "empty_months", m.mapping_line("empty_months", empty)
        )
    record["lock_existed"] = Path("dvc.lock").is_file()
    record["gitignore"] = {str(path): m.month_lines(path, month) for path in m.gitignores(Path("."))}
    MANIFESTS.mkdir(parents=True, exist_ok=True)
    manifest.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")
    params_file.write_text(text, encoding="utf-8")
    _rerender(params_file)
    if args.build == "month":
        _repro(*(f"{stage.name}@{month}" for stage in m.month_local(STAGES)))
    elif args.build == "all":
        _repro()
    placed = len(record["placed"])
    print(
        f"month add {month}: {placed} raw files placed, build {args.build}; "
        f"undo: almanac month remove {month}"
    )
    return 0


def remove_month(args: argparse.Namespace) -> int:
    from almanac.pipeline import months as m
    from almanac.pipeline.dag import STAGES

    month, params_file = args.month, Path(args.params)
    manifest = MANIFESTS / f"{month}.json"
    if not manifest.is_file():
        raise ValueError(f"{month} was not added by `almanac month add` (no {manifest}): nothing is removed")
    record = json.loads(manifest.read_text(encoding="utf-8"))
    from almanac.core.layout.paths import TIMINGS

    removed = sum(m.remove_path(path) for path in m.month_outputs(STAGES, month))
    for timing in sorted(TIMINGS.glob(f"*@{month}.json")):  # the build's wall-clock seconds (untracked)
        m.remove_path(timing)
    lock = Path("dvc.lock")
    dropped: list[str] = []
    if lock.is_file():
        text, dropped = m.drop_lock_entries(lock.read_text(encoding="utf-8"), month)
        if record["lock_existed"] or not m.lock_has_stages(text):
            lock.write_text(text, encoding="utf-8")
        if not record["lock_existed"] and not m.lock_has_stages(text):
            lock.unlink()  # the month's build wrote the first lock: none before the add, none after
    text = params_file.read_text(encoding="utf-8")
    text, _ = m.replace_top_level_line(text, "months", record["months_line"])
    if "empty_line" in record:
        text, _ = m.replace_top_level_line(text, "empty_months", record["empty_line"])
    params_file.write_text(text, encoding="utf-8")
    _rerender(params_file)
    before: dict[str, list[str]] = record["gitignore"]
    for path in m.gitignores(Path(".")):
        new = str(path) not in before
        if new and month in path.parent.as_posix():
            path.unlink()  # DVC wrote it into a folder of this month's outputs
        elif m.drop_gitignore_lines(path, month, before.get(str(path), ())) and new:
            path.unlink()  # DVC wrote it for this month's outputs only
    for placed in record["placed"]:
        m.remove_path(Path(placed))
    for folder in sorted(record["created_dirs"], reverse=True):
        if Path(folder).is_dir() and not any(Path(folder).iterdir()):
            Path(folder).rmdir()
    # Folders the month's build made (named by the month) and left empty: bottom-up, only empty ones.
    for path in sorted(m.naming(Path("."), month), key=lambda p: len(p.parts), reverse=True):
        if path.is_dir() and not path.is_symlink() and not any(path.iterdir()):
            path.rmdir()
    if record["build"] == "all":
        _repro()
    elif record["build"] == "month":
        # The month's build ran code_hashes on the edited params.yaml: run it again on the restored one, so
        # data/code/params.json and its dvc.lock entry are what they were before the add (byte for byte).
        from almanac.pipeline.code_stage import CODE_HASHES

        _repro(CODE_HASHES)
    manifest.unlink()
    if not any(MANIFESTS.iterdir()):
        MANIFESTS.rmdir()
    left = [path.as_posix() for path in m.naming(Path("."), month)]
    print(f"month remove {month}: {removed} outputs, {len(dropped)} dvc.lock entries removed")
    if left:
        print(f"month remove {month}: left alone (not created by the tool): {left[:10]}", file=sys.stderr)
    return 0
