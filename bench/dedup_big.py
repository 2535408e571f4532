"""Dedup at 1M and 10M articles: time and peak memory of signing + dedup on a streamed synthetic crawl.

    .venv/bin/python -m bench.dedup_big [--sizes 1000000,10000000] [--months 4] [--processes 2]
        [--workdir /tmp/almanac-bench-dedup-big] [--keep] [--phase all|generate|sign|dedup]
        [--sign-processes 4] [--out bench/results/dedup_big.json]

The crawl is ``bench.synthetic_crawl``'s (~300-word articles over a Zipf vocabulary, made by numpy a
batch of 20,000 at a time: 30% planted near-duplicates, 1% exact re-crawls, 2% published the month
before their crawl), each crawl month written by its own process, so nothing holds the corpus; the
planted pairs are kept beside it, for recall. The real stages then run
as child processes one at a time: ``dedup_signatures --month <m>`` for every crawl month, then one full
``dedup`` (no band index). Each child's CPU seconds and peak RSS come from its own rusage
(``os.wait4``), so the figures are per process and the driver's memory does not count.

Reported per size: generation wall time (not part of the goal), signing and dedup wall and CPU seconds,
the peak RSS of each, the candidate and verified pair counts, and the ratio of the largest size's
signing + dedup time to the smallest's (goal at 1M -> 10M: <= 11x, peak RSS <= 2 GB at 10M).
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from almanac.core.io import read_json, write_json
from bench.dedup_scale import SCRATCH_MARK, month_names, remove_scratch, run_stage, write_params
from bench.synthetic_crawl import make_crawl


def generate(root: Path, docs: int, months: list[str], seed: int, processes: int) -> float:
    """The crawl in ``root`` (reused when a kept one is complete); seconds spent generating it."""
    if (root / "generated").exists():
        return 0.0
    remove_scratch(root)
    root.mkdir(parents=True)
    (root / SCRATCH_MARK).write_text("made by bench.dedup_big\n")
    started = time.perf_counter()
    make_crawl(root, docs, months, seed, processes)
    (root / "generated").write_text("")
    return round(time.perf_counter() - started, 1)


def recall(root: Path) -> dict[str, Any]:
    """Planted pairs found (one of the two rejected as a near duplicate) among those whose two articles
    were both clustered (in scope, first copy of their id), and near-duplicate rejects not planted."""
    planted = pq.read_table(root / "planted")
    rejects = pq.read_table(root / "data" / "dedup" / "rejects.parquet", columns=["id", "reason"])
    near = rejects.filter(pc.equal(rejects.column("reason"), "near_duplicate")).column("id")
    outside = rejects.filter(pc.equal(rejects.column("reason"), "publish_month_out_of_scope")).column("id")
    copy, original = planted.column("copy_id"), planted.column("original_id")
    scoped = pc.invert(pc.or_(pc.is_in(copy, value_set=outside), pc.is_in(original, value_set=outside)))
    found = pc.or_(pc.is_in(copy, value_set=near), pc.is_in(original, value_set=near))
    members = pa.chunked_array([*copy.chunks, *original.chunks])
    evaluated = int(pc.sum(scoped).as_py() or 0)
    hits = int(pc.sum(pc.and_(found, scoped)).as_py() or 0)
    return {
        "planted_pairs": planted.num_rows,
        "planted_pairs_in_scope": evaluated,
        "recall": round(hits / max(evaluated, 1), 5),
        "near_duplicate_rejects_not_planted": int(
            pc.sum(pc.invert(pc.is_in(near, value_set=members))).as_py() or 0
        ),
    }


def bench_size(
    workdir: Path,
    docs: int,
    months: list[str],
    seed: int,
    processes: int,
    phase: str,
    known: dict[str, Any],
    sign_processes: int = 1,
) -> dict[str, Any]:
    """One size; ``phase`` runs only generation, signing or dedup (the others' figures come from ``known``,
    the report of an earlier run with a kept crawl)."""
    root = workdir / f"docs-{docs}-months-{len(months)}-seed-{seed}"
    result = dict(known)
    if phase in ("all", "generate"):
        result["generate_seconds"] = generate(root, docs, months, seed, processes)
        result["ingest_parquet_mb"] = round(
            sum(path.stat().st_size for path in (root / "data" / "ingest").rglob("*.parquet")) / 2**20, 1
        )
    write_params(root, months)
    if phase in ("all", "sign"):
        shutil.rmtree(root / "data" / "dedup" / "signatures", ignore_errors=True)
        started = time.perf_counter()
        with ThreadPoolExecutor(max(1, sign_processes)) as pool:  # each child's own rusage either way
            signs = list(
                pool.map(lambda month: run_stage(root, "dedup_signatures", "--month", month), months)
            )
        result["sign"] = {
            "seconds": round(time.perf_counter() - started, 2),  # wall of the phase (months may overlap)
            "cpu_seconds": round(sum(run.cpu_seconds for run in signs), 2),
            "peak_rss_mb": max(run.peak_rss_mb for run in signs),
        }
    if phase in ("all", "dedup"):
        for folder in ("data/dedup/index", "data/articles"):  # a full rebuild every time
            shutil.rmtree(root / folder, ignore_errors=True)
        dedup = run_stage(root, "dedup")
        metrics = read_json(root / "reports" / "metrics" / "dedup.json")
        result["articles"] = metrics["items_in"]
        result["dedup"] = dedup.__dict__
        result["dedup_metrics"] = {
            key: metrics[key]
            for key in ("items_out", "rejected_by_reason", "candidate_pairs", "verified_pairs")
            if key in metrics
        }
        result["planted"] = recall(root)
    result["crawl_months"] = len(months)
    if "sign" in result and "dedup" in result:
        sign, dedup_run = result["sign"], result["dedup"]
        result["seconds"] = round(sign["seconds"] + dedup_run["seconds"], 2)
        result["cpu_seconds"] = round(sign["cpu_seconds"] + dedup_run["cpu_seconds"], 2)
        result["peak_rss_mb"] = max(sign["peak_rss_mb"], dedup_run["peak_rss_mb"])
    return result


def peak_growth(small: dict[str, Any], large: dict[str, Any], target: int = 10_000_000) -> dict[str, float]:
    """Bytes of dedup peak RSS per added article between two sizes, and the peak that slope gives at
    ``target`` articles (a straight line: the fixed part is the smaller run's peak)."""
    added = large["articles"] - small["articles"]
    growth = (large["dedup"]["peak_rss_mb"] - small["dedup"]["peak_rss_mb"]) * 2**20 / added
    projected = small["dedup"]["peak_rss_mb"] + growth * (target - small["articles"]) / 2**20
    return {"bytes_per_article": round(growth, 1), f"projected_peak_mb_at_{target}": round(projected, 1)}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1000000,10000000", help="comma-separated article counts")
    parser.add_argument("--months", type=int, default=4, help="crawl months the articles are split over")
    parser.add_argument("--processes", type=int, default=min(4, os.cpu_count() or 1), help="generators")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/almanac-bench-dedup-big"))
    parser.add_argument("--keep", action="store_true", help="keep (and next time reuse) the generated crawls")
    parser.add_argument("--out", type=Path, default=Path("bench/results/dedup_big.json"))
    parser.add_argument(
        "--sign-processes", type=int, default=1, help="crawl months signed at once (CPU/RSS stay per process)"
    )
    parser.add_argument(
        "--phase",
        choices=("all", "generate", "sign", "dedup"),
        default="all",
        help="one step (implies --keep)",
    )
    args = parser.parse_args(argv)
    # The stages' Arrow buffers from jemalloc, which returns freed pages sooner than Arrow's default
    # mimalloc (docs/scaling.md: ~50 MB less peak at 1M); the stage children inherit it.
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "jemalloc")
    sizes = [int(size) for size in args.sizes.split(",")]
    months = month_names(args.months)
    runs: dict[str, Any] = read_json(args.out).get("runs", {}) if args.out.is_file() else {}
    for docs in sizes:
        known = runs.get(str(docs), {}) if args.phase != "all" else {}
        runs[str(docs)] = bench_size(
            args.workdir, docs, months, args.seed, args.processes, args.phase, known, args.sign_processes
        )
        print(f"{docs:>11,} articles: {runs[str(docs)]}", flush=True)
        write_json({"runs": runs}, args.out)  # each size as soon as it is measured
        if not args.keep and args.phase == "all":
            remove_scratch(args.workdir / f"docs-{docs}-months-{len(months)}-seed-{args.seed}")
    small, large = runs[str(sizes[0])], runs[str(sizes[-1])]
    if "seconds" not in small or "seconds" not in large:
        return
    report = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average_at_end": [round(value, 1) for value in os.getloadavg()],
        "runs": runs,
        "large_over_small": {
            "articles": round(large["articles"] / small["articles"], 2),
            "seconds": round(large["seconds"] / small["seconds"], 2),
            "cpu_seconds": round(large["cpu_seconds"] / small["cpu_seconds"], 2),
            "peak_rss": round(large["peak_rss_mb"] / small["peak_rss_mb"], 2),
        },
        "goals": {"seconds_ratio_1m_to_10m_max": 11, "peak_rss_mb_at_10m_max": 2048},
    }
    if large["articles"] > small["articles"]:
        report["dedup_peak_growth"] = peak_growth(small, large)
    write_json(report, args.out)
    print(report["large_over_small"])
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
