"""The no-op stamp after a build: ``make repro``'s first no-op after a build that ran stages is fast too.

A build that ran stages cannot be stamped from what DVC read while deciding: a stage's outs and dvc.lock were
written after DVC started, so the stamp's ctime rule (``almanac.core.noop_stamp.collect``) refuses them. So
after such a build, still inside ``Repo.reproduce`` (DVC imported, the repository locked), the launcher asks
DVC's own question again: it drops the repository's cached index (DVC's ``_reset``, what its lock does),
collects the stages of ``dvc.yaml`` and plans them exactly as ``Repo.reproduce`` without targets does, and
calls each planned stage's ``changed()`` in plan order, the check ``Stage.reproduce`` makes before running a
stage. When none changed, the next ``make repro`` would be a no-op: the stamp is written under the same
ctime rule, against a file-system time probed after the build's last write and before the re-check. A file
edited while the re-check runs is newer than that probe: no stamp, and the next run takes DVC's path.

A stage DVC always runs (``always_changed``, or a command without deps and outs) skips the re-check: it
would find that stage changed. The re-check is an optimisation: any error means no stamp, never a failed
repro.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from almanac.core import noop_stamp

# A probe after the build's last write must read a later tick of the file-system clock (coarse: ~4 ms).
CLOCK_WAIT_S = 0.2


def clock_after_now(folder: Path) -> int | None:
    """A file-system time later than every write made before this call (None if the clock did not move)."""
    now = noop_stamp.filesystem_now(folder)
    deadline = time.monotonic() + CLOCK_WAIT_S
    while time.monotonic() < deadline:
        time.sleep(0.001)
        later = noop_stamp.filesystem_now(folder)
        if later > now:
            return later
    return None


def always_runs(stage: Any) -> bool:
    """A stage ``Stage.changed`` always reports changed (a frozen stage's deps are never changed)."""
    return not stage.frozen and bool(stage.always_changed or stage.is_callback)


def nothing_to_do(repo: Any) -> bool:
    """Whether ``dvc repro`` without targets would run no stage now: DVC's planning and its per-stage
    ``changed()``, with the index built again from the files on disk."""
    from dvc.dvcfile import PROJECT_FILE
    from dvc.repo.reproduce import collect_stages, get_active_graph, plan_repro

    repo._reset()
    stages = collect_stages(repo, [PROJECT_FILE])
    graph = get_active_graph(repo.index.graph)
    for stage in plan_repro(graph, stages):
        upstream = list(graph.successors(stage))
        if always_runs(stage) or stage.changed(False, upstream):
            return False
    return True


def stamp_if_up_to_date(steps: list[Any], stamp_path: Path = noop_stamp.STAMP) -> bool:
    """After a build that ran ``steps`` (DVC's plan, its repository still locked): stamp when a fresh
    up-to-date check finds nothing to do. Whether a stamp was written."""
    try:
        if any(always_runs(stage) for stage in steps):
            return False
        repo = steps[0].repo
        before_ns = clock_after_now(stamp_path.parent)
        if before_ns is None or not nothing_to_do(repo):
            return False
        noop_stamp.write(noop_stamp.collect(repo, before_ns), stamp_path)
        return True
    except Exception:  # an optimisation: never fails the repro
        noop_stamp.forget(stamp_path)
        return False
