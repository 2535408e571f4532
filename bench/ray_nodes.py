"""Per-node throughput on a multi-raylet Ray cluster on this machine (``python -m bench.ray_nodes``).

Starts the project cluster with ``--nodes`` raylets of 1 CPU each (as ``make ray-up RAY_NODES=N`` does,
127.0.0.1, token auth) in a scratch folder, signs ``--docs`` synthetic articles in tasks of
``--per-task`` through ``parallel_map`` (the dedup_signatures work), and reports, per node, the tasks
it ran, articles per second of task wall time and of task CPU time; then the same work in-process.
Run as ``-m`` so the timed task is shipped by value (Ray workers cannot import ``bench``). On a shared
machine the wall rates move with the load; the CPU rates much less. Results go to
``bench/results/ray_nodes.json``.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from almanac.core.io import write_json
from almanac.core.parallel import RayConfig, init_ray, parallel_map
from almanac.core.ray_cluster import add_node, start_cluster, stop_cluster
from almanac.dedup.minhash import MinHashConfig, signatures
from bench.dedup import make_corpus

RESULTS = Path("bench/results/ray_nodes.json")
MINHASH = MinHashConfig(num_perm=112, ngram=5, seed=1)


def timed_sign(texts: list[str]) -> tuple[str, float, float, int]:
    """Sign one task's texts; (node id, wall s, CPU s, articles)."""
    import ray

    started, cpu = time.perf_counter(), time.process_time()
    signatures(texts, MINHASH)
    node = ray.get_runtime_context().get_node_id() if ray.is_initialized() else "in-process"
    return node, time.perf_counter() - started, time.process_time() - cpu, len(texts)


def per_node(results: list[tuple[str, float, float, int]]) -> dict[str, dict[str, float]]:
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for node, wall, cpu, docs in results:
        total = sums[node]
        total[0] += 1
        total[1] += wall
        total[2] += cpu
        total[3] += docs
    return {
        f"node{index}": {
            "tasks": int(tasks),
            "articles": int(docs),
            "articles_per_task_wall_s": round(docs / wall, 1),
            "articles_per_cpu_s": round(docs / cpu, 1),
        }
        for index, (tasks, wall, cpu, docs) in enumerate(sums.values())
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", type=int, default=2)
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--per-task", type=int, default=1_000)
    args = parser.parse_args()
    texts, _ = make_corpus(args.docs, 7)
    chunks = [texts[start : start + args.per_task] for start in range(0, len(texts), args.per_task)]
    report: dict[str, Any] = {"nodes": args.nodes, "articles": len(texts), "tasks": len(chunks)}
    started = time.perf_counter()
    serial = parallel_map(timed_sign, chunks, RayConfig(executor="serial"))
    report["in_process"] = {**per_node(serial)["node0"], "wall_s": round(time.perf_counter() - started, 2)}
    results_path = RESULTS.resolve()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        started = time.perf_counter()
        start_cluster(root, 1, 200)
        for _ in range(args.nodes - 1):
            add_node(root, 1, 200)
        report["cluster_start_s"] = round(time.perf_counter() - started, 1)
        here = Path.cwd()
        os.chdir(root)  # ray.address auto: the cluster recorded in ./.ray/cluster.json
        try:
            config = RayConfig(address="auto", min_bytes=0)
            init_ray(config)
            started = time.perf_counter()
            found = parallel_map(timed_sign, chunks, config)
            wall = time.perf_counter() - started
        finally:
            os.chdir(here)
            stop_cluster(root)
    report["cluster"] = {"per_node": per_node(found), "wall_s": round(wall, 2)}
    report["cluster"]["articles_per_wall_s"] = round(len(texts) / wall, 1)
    write_json(report, results_path)
    print(report)


if __name__ == "__main__":
    main()
