"""The ``dedup`` stage's CPU seconds on a signed synthetic crawl: full rebuilds, one process each.

    .venv/bin/python -m bench.dedup --stage-cpu 100000 [--repeats 3] [--code DIR ...]

``bench.dedup_scale``'s crawl of N articles over 5 crawl months (4% edited copies, 1% re-crawls, 2%
published the month before) is generated and signed once in a scratch project (kept under
``--workdir``, reused by the next call), then ``python -m stages.dedup`` runs as a full rebuild
(``data/dedup/index`` and ``data/articles`` removed first) ``--repeats`` times. Each run's user and
system CPU seconds and peak RSS come from ``os.wait4`` (the stage process's own rusage), so the figure
does not depend on the driver. With ``--code`` (other checkouts, e.g. ``git worktree add /tmp/base
main``), each checkout's stage runs in turn, A B A B ..., on the same signatures, and the report says
which output files differ from the first checkout's (the index manifest always does: it holds a digest
of the dedup code). On a shared machine, compare only runs made in turn in one call.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from almanac.core.io import write_json
from bench.dedup_scale import (
    ROOT,
    SCRATCH_MARK,
    make_crawl,
    month_names,
    output_digests,
    remove_scratch,
    run_stage,
    write_params,
)

MONTHS = 5


def prepare(workdir: Path, docs: int) -> Path:
    """The signed scratch project of ``docs`` articles (made once, then reused)."""
    root = workdir / f"docs-{docs}-months-{MONTHS}-seed-0"
    months = month_names(MONTHS)
    if not (root / "signed").is_file():
        remove_scratch(root)
        root.mkdir(parents=True)
        (root / SCRATCH_MARK).write_text("made by bench.dedup_cpu\n")
        make_crawl(root, docs, months, 0)
        write_params(root, months)
        for month in months:
            run_stage(root, "dedup_signatures", "--month", month)
        (root / "signed").write_text("")
    return root


def full_rebuild(root: Path, code: Path) -> dict[str, Any]:
    """One ``stages.dedup`` process with ``code`` first on its path, after removing the index."""
    for folder in ("data/dedup/index", "data/articles"):
        shutil.rmtree(root / folder, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(code), "RAY_USAGE_STATS_ENABLED": "0"}
    load = os.getloadavg()[0]
    started = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "stages.dedup"], cwd=root, env=env, stderr=subprocess.PIPE, text=True
    )
    assert child.stderr is not None
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"stages.dedup ({code}) failed:\n{errors[-3000:]}")
    return {
        "user_seconds": round(usage.ru_utime, 2),
        "system_seconds": round(usage.ru_stime, 2),
        "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "wall_seconds": round(time.perf_counter() - started, 1),
        "load_average_1m": round(load, 1),
    }


def stage_cpu(docs: int, repeats: int, codes: list[Path], workdir: Path, out: Path) -> dict[str, Any]:
    root = prepare(workdir, docs)
    codes = codes or [ROOT]
    runs: dict[str, list[dict[str, Any]]] = {str(code): [] for code in codes}
    outputs: dict[str, dict[str, str]] = {}
    for _ in range(repeats):
        for code in codes:
            run = full_rebuild(root, code)
            runs[str(code)].append(run)
            outputs[str(code)] = output_digests(root)
            print(f"{code}: {run}", flush=True)
    first = outputs[str(codes[0])]
    medians = {
        code: {
            key: statistics.median(run[key] for run in found)
            for key in ("user_seconds", "system_seconds", "cpu_seconds", "peak_rss_mb")
        }
        for code, found in runs.items()
    }
    report: dict[str, Any] = {
        "articles": docs,
        "crawl_months": MONTHS,
        "cpu_count": len(os.sched_getaffinity(0)),
        "runs": runs,
        "median": medians,
        "files_differing_from_first": {
            str(code): sorted(
                name
                for name in set(first) | set(outputs[str(code)])
                if first.get(name) != outputs[str(code)].get(name)
            )
            for code in codes[1:]
        },
    }
    for name, median in medians.items():
        print(f"median of {repeats}, {name}: {median}")
    write_json(report, out)
    print(f"wrote {out}")
    return report
