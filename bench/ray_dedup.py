"""Dedup signing in-process vs on Ray (private runtime per stage, or the project's `make ray-up` cluster).

    .venv/bin/python -m bench.ray_dedup [--docs 20000] [--large] [--out bench/results/ray_dedup.json]

One synthetic corpus per size (``bench.dedup.make_corpus``: ~600-word news-like documents) is signed
in chunks of ``dedup.docs_per_task`` with ``parallel_map``, once per executor, each run a fresh process
in the same bench run (interleaved, so the ratios compare like with like on a shared machine):

- ``in_process``: ``ray.executor: serial``;
- ``ray_private``: ``ray.address: ""``, the default: the stage process starts its own local Ray;
- ``ray_project``: ``ray.address: auto``, joining a cluster started before the run (what ``make ray-up``
  does once per ``dvc repro``); its start is timed apart, as it is paid once, not per stage.

Per run: wall seconds of the process's work (runtime start or join, then the map), the start alone,
and peak RSS, sampled every 0.1 s, of the driver alone and summed with every Ray process serving it
(raylet, GCS, workers; Ray's shared object store pages count once per process that maps them, so the
sum over-reports). ``--docs`` sets the base size; ``--large`` adds 10x (200k), which takes minutes.
The per-stage overhead saved by one runtime per ``dvc repro`` is ``ray_private.start_s`` minus
``ray_project.start_s``. The threshold decision of the default params (``ray.min_items`` and
``ray.min_bytes``, from the chunks' input size) is reported too.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import psutil
import pyarrow as pa
import pyarrow.parquet as pq

from almanac.core.io import write_json
from almanac.core.parallel import RayConfig, init_ray, item_bytes, parallel_map
from almanac.core.params import load_params, parse_section
from almanac.core.ray_cluster import read_cluster, start_cluster, stop_cluster
from almanac.dedup.minhash import MinHashConfig, signatures
from almanac.dedup.near_duplicates import DedupConfig
from bench.dedup import make_corpus

EXECUTORS = ("in_process", "ray_private", "ray_project")
ROOT = Path(__file__).resolve().parents[1]


class PeakRss:
    """Peak RSS (MiB) of this process and, summed, of it plus the Ray processes serving it."""

    def __init__(self, node_pids: Sequence[int]) -> None:
        self.node_pids = list(node_pids)
        self.driver_mb = 0.0
        self.total_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        me = psutil.Process()
        while not self._stop.is_set():
            roots = [me, *(psutil.Process(pid) for pid in self.node_pids if psutil.pid_exists(pid))]
            processes = {p.pid: p for root in roots for p in [root, *root.children(recursive=True)]}
            total = 0
            for process in processes.values():
                try:
                    total += process.memory_info().rss
                except psutil.NoSuchProcess:
                    continue
            self.driver_mb = max(self.driver_mb, me.memory_info().rss / 2**20)
            self.total_mb = max(self.total_mb, total / 2**20)
            self._stop.wait(0.1)


def run_one(executor: str, corpus: Path) -> dict[str, Any]:
    """In this (child) process: sign the corpus on ``executor``; figures as a dict."""
    texts = pq.read_table(corpus).column("text").to_pylist()
    dedup = parse_section(DedupConfig, load_params(ROOT / "params.yaml"), "dedup")
    minhash = MinHashConfig(num_perm=dedup.num_perm, ngram=dedup.ngram, seed=dedup.seed)
    step = dedup.docs_per_task
    chunks = [texts[start : start + step] for start in range(0, len(texts), step)]
    config = {
        "in_process": RayConfig(executor="serial"),
        "ray_private": RayConfig(min_bytes=0),
        "ray_project": RayConfig(address="auto", min_bytes=0),
    }[executor]
    node_pids = [node.pid for node in read_cluster().nodes] if executor == "ray_project" else []
    sign = functools.partial(signatures, config=minhash)  # importable by Ray workers (no bench import)
    with PeakRss(node_pids) as peak:
        started = time.perf_counter()
        if executor != "in_process":
            init_ray(config)
        start_s = time.perf_counter() - started
        signed = parallel_map(sign, chunks, config, desc="signatures", unit="chunk")
        seconds = time.perf_counter() - started
    rows = sum(len(block) for block in signed)
    assert rows == len(texts), (rows, len(texts))
    return {
        "seconds": round(seconds, 2),
        "start_s": round(start_s, 2),
        "map_s": round(seconds - start_s, 2),
        "docs_per_s": round(len(texts) / (seconds - start_s), 1),
        "peak_rss_mb_driver": round(peak.driver_mb, 1),
        "peak_rss_mb_with_ray": round(peak.total_mb, 1),
        "chunks": len(chunks),
    }


def threshold_decision(corpus: Path) -> dict[str, Any]:
    """What the default params decide for the signing chunks: their count and input bytes vs the floors."""
    params = load_params(ROOT / "params.yaml")
    ray_config = parse_section(RayConfig, params, "ray")
    dedup = parse_section(DedupConfig, params, "dedup")
    texts = pq.read_table(corpus).column("text").to_pylist()
    step = dedup.docs_per_task
    chunks = [texts[start : start + step] for start in range(0, len(texts), step)]
    size = sum(item_bytes(chunk) for chunk in chunks)
    return {
        "chunks": len(chunks),
        "input_bytes": size,
        "min_bytes": ray_config.min_bytes,
        "default_params_use_ray": not ray_config.runs_in_process(len(chunks), size),
    }


def child(executor: str, corpus: Path, cwd: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "RAY_USAGE_STATS_ENABLED": "0"}
    command = [sys.executable, "-m", "bench.ray_dedup", "--child", executor, "--corpus", str(corpus)]
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=3600)
    if done.returncode != 0:
        raise RuntimeError(f"{executor} run failed: {done.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def bench_size(docs: int, seed: int, scratch: Path, cluster_root: Path) -> dict[str, Any]:
    started = time.perf_counter()
    texts, _ = make_corpus(docs, seed)
    corpus = scratch / f"corpus-{docs}.parquet"
    pq.write_table(pa.table({"text": texts}), corpus)
    del texts
    print(f"{docs} docs: corpus made in {time.perf_counter() - started:.0f} s", flush=True)
    runs: dict[str, Any] = {}
    for executor in EXECUTORS:
        runs[executor] = child(executor, corpus, cluster_root if executor == "ray_project" else ROOT)
        print(f"  {executor}: {runs[executor]}", flush=True)
    base = runs["in_process"]
    for executor in EXECUTORS[1:]:
        runs[executor]["time_ratio_vs_in_process"] = round(runs[executor]["seconds"] / base["seconds"], 2)
        runs[executor]["rss_ratio_vs_in_process"] = round(
            runs[executor]["peak_rss_mb_with_ray"] / base["peak_rss_mb_driver"], 2
        )
    runs["per_stage_overhead_saved_s"] = round(
        runs["ray_private"]["start_s"] - runs["ray_project"]["start_s"], 2
    )
    runs["threshold"] = threshold_decision(corpus)
    corpus.unlink()
    return runs


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--large", action="store_true", help="also 10x --docs (200k by default: minutes)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("bench/results/ray_dedup.json"))
    parser.add_argument("--child", choices=EXECUTORS, help=argparse.SUPPRESS)
    parser.add_argument("--corpus", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_one(args.child, args.corpus)))
        return
    started = time.perf_counter()
    ray_config = parse_section(RayConfig, load_params(), "ray")
    sizes = [args.docs, 10 * args.docs] if args.large else [args.docs]
    report: dict[str, Any] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version()},
        "ray_cpus": ray_config.num_cpus or os.cpu_count(),
    }
    with tempfile.TemporaryDirectory(prefix="bench-ray-") as scratch:
        cluster_root = Path(scratch) / "project"
        cluster_root.mkdir()
        begun = time.perf_counter()
        start_cluster(cluster_root, ray_config.num_cpus, ray_config.object_store_mb)
        report["project_cluster_start_s"] = round(time.perf_counter() - begun, 2)  # once per dvc repro
        try:
            report["sizes"] = {
                str(docs): bench_size(docs, args.seed, Path(scratch), cluster_root) for docs in sizes
            }
        finally:
            stop_cluster(cluster_root)
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    write_json(report, args.out)
    print(f"\nwrote {args.out} in {report['total_seconds']} s")


if __name__ == "__main__":
    main()
