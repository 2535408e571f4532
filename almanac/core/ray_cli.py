"""``make ray-up`` / ``make ray-down``: the project's shared local Ray cluster (``almanac.core.ray_cluster``).

    python -m almanac.core.ray_cli up [--nodes N]|down|status

``up`` starts it with ``ray.num_cpus`` and ``ray.object_store_mb`` from params.yaml (or says it already
runs); stages join it when ``ray.address`` is ``auto``. ``--nodes N`` (``make ray-up RAY_NODES=N``)
starts N raylets on this machine, a head and N-1 workers, all on 127.0.0.1 with the cluster's token:
a multi-node cluster to try stages on before a real one; each node gets ``ray.num_cpus`` CPUs, or
with 0 its share of this machine's cores. A running cluster with fewer nodes gets the missing ones.
``down`` stops it; ``status`` exits 1 when none runs.
Each prints one line; a failure exits non-zero with its cause.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from almanac.core.layout import ray_cluster_file
from almanac.core.parallel import RayConfig
from almanac.core.params import load_params, parse_section
from almanac.core.ray_cluster import ClusterError, add_node, read_cluster, start_cluster, stop_cluster


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("action", choices=("up", "down", "status"))
    parser.add_argument("--nodes", type=int, default=1, help="raylets to run on this machine (up)")
    args = parser.parse_args(argv)
    root = Path()
    try:
        if args.action == "up":
            if args.nodes < 1:
                parser.error("--nodes must be >= 1")
            config = parse_section(RayConfig, load_params(), "ray")
            cpus = config.num_cpus or max(1, (os.cpu_count() or 1) // args.nodes)
            cluster = start_cluster(root, cpus, config.object_store_mb)
            while len(cluster.nodes) < args.nodes:
                cluster = add_node(root, cpus, config.object_store_mb)
            where = f"{cluster.address} ({ray_cluster_file()}), {len(cluster.nodes)} node(s)"
            print(f"ray-up: project Ray cluster at {where}; stages with ray.address auto join it")
        elif args.action == "down":
            stopped = stop_cluster(root)
            print(f"ray-down: {stopped} Ray processes stopped" if stopped else "ray-down: none was running")
        else:
            cluster = read_cluster(root)
            nodes = len(cluster.nodes)
            print(f"ray: project cluster at {cluster.address}, {nodes} node(s), {cluster.temp_dir}")
    except ClusterError as error:
        print(f"ray-{args.action}: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
