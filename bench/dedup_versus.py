"""Almanac's dedup against datatrove's MinHash dedup on one crawl, in turn (bench.dedup --versus-datatrove).

The crawl is ``bench.synthetic_crawl``'s (~300-word articles, 30% planted near-duplicates, 1% exact
re-crawls, 4 crawl months). Each repeat runs, one after the other on the same machine load:

- Almanac: ``dedup_signatures --month`` for the 4 crawl months (as many at once as the machine has
  cores, as ``dvc repro`` may), then one full ``dedup`` (workers: every core), as child processes;
- datatrove 0.10: its four MinHash steps (bench/datatrove_minhash.py, in the Python given, since
  datatrove is not in Almanac's lock) on as many worker processes as the machine has cores, reading the
  same ingest Parquet files and writing the kept documents as Parquet.

Wall seconds are the phase's; Almanac's CPU seconds and peak RSS are its stage processes' own
(``os.wait4``); datatrove's workers are started by its forkserver, so only its driver's are known.
Reported: each run, the min and median of every figure, the ratio of Almanac's wall to datatrove's per
pair of runs, the load average around each run, and recall on the
planted pairs (a pair is found when one of its two articles is removed) with removals of articles in no
planted pair and no exact re-crawl (false removals).
"""

from __future__ import annotations

import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from almanac.core.io import write_json
from bench.dedup_big import generate, recall
from bench.dedup_scale import month_names, run_stage, write_params

RUNNER = Path(__file__).resolve().parent / "datatrove_minhash.py"


def _almanac(root: Path, months: list[str], cores: int) -> dict[str, Any]:
    for folder in ("data/dedup/signatures", "data/dedup/index", "data/articles"):
        shutil.rmtree(root / folder, ignore_errors=True)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with ThreadPoolExecutor(cores) as pool:
        signs = list(pool.map(lambda month: run_stage(root, "dedup_signatures", "--month", month), months))
    signed = time.perf_counter()
    dedup = run_stage(root, "dedup")
    ended = time.perf_counter()
    return {
        "seconds": round(ended - started, 2),
        "sign_seconds": round(signed - started, 2),
        "dedup_seconds": round(ended - signed, 2),
        "cpu_seconds": round(sum(run.cpu_seconds for run in signs) + dedup.cpu_seconds, 2),
        "dedup_cpu_seconds": dedup.cpu_seconds,
        "peak_rss_mb": max(dedup.peak_rss_mb, *(run.peak_rss_mb for run in signs)),
        "load_average": [round(load, 1), round(os.getloadavg()[0], 1)],
        **recall(root),
    }


def _datatrove(root: Path, python: Path, work: Path, cores: int) -> dict[str, Any]:
    shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()[0]
    started = time.perf_counter()
    child = subprocess.Popen(
        [str(python), str(RUNNER), str(root / "data" / "ingest"), str(work), "--workers", str(cores)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stderr is not None
    errors = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status):
        raise RuntimeError(f"datatrove failed:\n{errors[-3000:]}")
    removed = pq.read_table(work / "removed", columns=["id"]).column("id")
    return {
        "seconds": round(seconds, 2),
        # datatrove's workers are children of its forkserver, not of this child: their CPU and memory
        # are not in this rusage, which is the driver's own
        "driver_cpu_seconds": round(usage.ru_utime + usage.ru_stime, 2),
        "driver_peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "load_average": [round(load, 1), round(os.getloadavg()[0], 1)],
        **_removal_recall(root, removed),
    }


def _removal_recall(root: Path, removed: pa.ChunkedArray) -> dict[str, Any]:
    """Planted pairs with one article removed, and removed articles in no planted pair whose id is not
    repeated in the crawl (an exact re-crawl's copy is a right removal)."""
    planted = pq.read_table(root / "planted")
    copy, original = planted.column("copy_id"), planted.column("original_id")
    found = pc.or_(pc.is_in(copy, value_set=removed), pc.is_in(original, value_set=removed))
    ids = pq.read_table(root / "data" / "ingest", columns=["id"]).column("id")
    counts = pc.value_counts(ids)
    repeated = counts.field("values").filter(pc.greater(counts.field("counts"), 1))
    members = pa.chunked_array([*copy.chunks, *original.chunks])
    unexplained = pc.invert(
        pc.or_(pc.is_in(removed, value_set=members), pc.is_in(removed, value_set=repeated))
    )
    return {
        "planted_pairs": planted.num_rows,
        "recall": round(int(pc.sum(found).as_py() or 0) / max(planted.num_rows, 1), 5),
        "removed": len(removed),
        "removals_not_planted": int(pc.sum(unexplained).as_py() or 0),
    }


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        f"{key}_{name}": round(function([run[key] for run in runs]), 2)
        for key in ("seconds", "cpu_seconds", "peak_rss_mb")
        if key in runs[0]
        for name, function in (("min", min), ("median", statistics.median))
    }


def versus_datatrove(docs: int, python: Path, repeats: int, workdir: Path, out: Path) -> dict[str, Any]:
    months = month_names(4)
    root = workdir / f"docs-{docs}-months-{len(months)}-seed-0"
    cores = len(os.sched_getaffinity(0))
    generated = generate(root, docs, months, 0, cores)
    write_params(root, months)
    ours: list[dict[str, Any]] = []
    theirs: list[dict[str, Any]] = []
    for repeat in range(repeats):  # in turn, so that both see the same drift of the machine's load
        ours.append(_almanac(root, months, cores))
        print(f"run {repeat + 1} almanac   {ours[-1]}", file=sys.stderr, flush=True)
        theirs.append(_datatrove(root, python, workdir / "datatrove", cores))
        print(f"run {repeat + 1} datatrove {theirs[-1]}", file=sys.stderr, flush=True)
    ratios = [round(a["seconds"] / b["seconds"], 3) for a, b in zip(ours, theirs, strict=True)]
    report = {
        "machine": f"{platform.machine()}, {cores} cores, Python {platform.python_version()}",
        "articles": docs,
        "generate_seconds": generated,
        "almanac": {"runs": ours, **_summary(ours)},
        "datatrove": {"runs": theirs, **_summary(theirs)},
        "wall_ratio_per_pair": ratios,
        "wall_ratio_min": min(ratios),
        "wall_ratio_median": round(statistics.median(ratios), 3),
        "goal_wall_ratio_max": 0.6,
    }
    write_json(report, out)
    print({key: report[key] for key in ("wall_ratio_per_pair", "wall_ratio_median")}, flush=True)
    return report
