"""Dedup at 1M and 10M articles: time and peak memory of signing + dedup on a streamed synthetic crawl.

    .venv/bin/python -m bench.dedup_big [--sizes 1000000,10000000] [--months 4] [--processes 2]
        [--workdir /tmp/almanac-bench-dedup-big] [--keep] [--out bench/results/dedup_big.json]

The crawl is ``bench.dedup_scale``'s generator (~600-word articles over a Zipf vocabulary; 4% lightly
edited copies, 1% exact re-crawls, 2% published the month before their crawl), each crawl month written
by its own process ``CHUNK`` articles at a time, so nothing holds the corpus. The real stages then run
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
from pathlib import Path
from typing import Any

from almanac.core.io import read_json, write_json
from bench.dedup_scale import (
    SCRATCH_MARK,
    make_crawl_parallel,
    month_names,
    remove_scratch,
    run_stage,
    write_params,
)


def generate(root: Path, docs: int, months: list[str], seed: int, processes: int) -> float:
    """The crawl in ``root`` (reused when a kept one is complete); seconds spent generating it."""
    if (root / "generated").exists():
        return 0.0
    remove_scratch(root)
    root.mkdir(parents=True)
    (root / SCRATCH_MARK).write_text("made by bench.dedup_big\n")
    started = time.perf_counter()
    make_crawl_parallel(root, docs, months, seed, processes)
    (root / "generated").write_text("")
    return round(time.perf_counter() - started, 1)


def bench_size(workdir: Path, docs: int, months: list[str], seed: int, processes: int) -> dict[str, Any]:
    root = workdir / f"docs-{docs}-months-{len(months)}-seed-{seed}"
    generated = generate(root, docs, months, seed, processes)
    write_params(root, months)
    for folder in ("data/dedup/index", "data/articles"):  # a full rebuild every time
        shutil.rmtree(root / folder, ignore_errors=True)
    signs = [run_stage(root, "dedup_signatures", "--month", month) for month in months]
    dedup = run_stage(root, "dedup")
    metrics = read_json(root / "reports" / "metrics" / "dedup.json")
    sign_wall = sum(run.seconds for run in signs)
    sign_cpu = sum(run.cpu_seconds for run in signs)
    ingest_mb = sum(path.stat().st_size for path in (root / "data" / "ingest").rglob("*.parquet")) / 2**20
    return {
        "articles": metrics["items_in"],
        "crawl_months": len(months),
        "generate_seconds": generated,
        "ingest_parquet_mb": round(ingest_mb, 1),
        "sign": {
            "seconds": round(sign_wall, 2),
            "cpu_seconds": round(sign_cpu, 2),
            "peak_rss_mb": max(run.peak_rss_mb for run in signs),
        },
        "dedup": dedup.__dict__,
        "seconds": round(sign_wall + dedup.seconds, 2),
        "cpu_seconds": round(sign_cpu + dedup.cpu_seconds, 2),
        "peak_rss_mb": max(dedup.peak_rss_mb, *(run.peak_rss_mb for run in signs)),
        "dedup_metrics": {
            key: metrics[key]
            for key in ("items_out", "rejected_by_reason", "candidate_pairs", "verified_pairs")
            if key in metrics
        },
    }


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1000000,10000000", help="comma-separated article counts")
    parser.add_argument("--months", type=int, default=4, help="crawl months the articles are split over")
    parser.add_argument("--processes", type=int, default=min(4, os.cpu_count() or 1), help="generators")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/almanac-bench-dedup-big"))
    parser.add_argument("--keep", action="store_true", help="keep (and next time reuse) the generated crawls")
    parser.add_argument("--out", type=Path, default=Path("bench/results/dedup_big.json"))
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    months = month_names(args.months)
    runs: dict[str, Any] = {}
    for docs in sizes:
        runs[str(docs)] = bench_size(args.workdir, docs, months, args.seed, args.processes)
        print(f"{docs:>11,} articles: {runs[str(docs)]}", flush=True)
        write_json({"runs": runs}, args.out)  # each size as soon as it is measured
        if not args.keep:
            remove_scratch(args.workdir / f"docs-{docs}-months-{len(months)}-seed-{args.seed}")
    small, large = runs[str(sizes[0])], runs[str(sizes[-1])]
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
    write_json(report, args.out)
    print(report["large_over_small"])
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
