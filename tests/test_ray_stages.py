"""The stages themselves on a multi-node Ray cluster: `make ray-up RAY_NODES=2` on 127.0.0.1, token auth.

``ccnews_ingest``, ``dedup_signatures`` and ``dedup`` run as stage processes joining the cluster
(``ray.address: auto``, no size floor so the sample's few items go to Ray) and must write the very bytes
the serial run writes. The test calls the stages only, never dedup internals.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import psutil
import pytest

from tests.support.project import make_project, output_digests, run

pytestmark = [pytest.mark.ray, pytest.mark.slow]  # a two-raylet cluster and 10 stage processes: ~1.5 min

# Two of the sample's months are enough for what Ray changes (several signing tasks per month, dedup across
# months): each month more is two stage processes more in each run, ~10 s of start-up apiece on 2 cores.
MONTHS = ("2025-05", "2025-06")
# Both runs: the two months only; signing in batches of 3 articles (several tasks per crawl month), banding
# in 2 shards.
SHARED = {"months": list(MONTHS), "dedup__sign_batch_rows": 3, "dedup__band_shards": 2}
OUTPUTS = ("data/ingest", "data/dedup", "data/articles")


def _stages(project: Path) -> dict[str, str]:
    """Run the three stages for every crawl month; stderr of each, by stage name."""
    said = {}
    for month in MONTHS:
        said[f"ccnews_ingest@{month}"] = run(
            [sys.executable, "-m", "stages.ccnews_ingest", "--month", month], project
        ).stderr
    for month in MONTHS:
        command = [sys.executable, "-m", "stages.dedup_signatures", "--month", month]
        said[f"dedup_signatures@{month}"] = run(command, project).stderr
    said["dedup"] = run([sys.executable, "-m", "stages.dedup"], project).stderr
    return said


def test_ingest_signatures_and_dedup_on_a_two_raylet_cluster_match_the_serial_run(tmp_path: Path) -> None:
    serial = make_project(tmp_path / "serial", ray__executor="serial", **SHARED)
    _stages(serial)
    clustered = make_project(
        tmp_path / "cluster",
        ray__address="auto",
        ray__executor="ray",
        ray__min_bytes=0,
        ray__num_cpus=1,
        ray__object_store_mb=100,
        **SHARED,
    )
    up = run([sys.executable, "-m", "almanac.core.ray_cli", "up", "--nodes", "2"], clustered)
    state = json.loads((clustered / ".ray" / "cluster.json").read_text())
    nodes = [psutil.Process(node["pid"]) for node in state["nodes"]]
    try:
        assert "2 node(s)" in up.stdout, up.stdout
        assert state["address"].startswith("127.0.0.1:") and len(nodes) == 2
        assert all(node.environ()["RAY_AUTH_MODE"] == "token" for node in nodes)
        said = _stages(clustered)
    finally:
        down = run([sys.executable, "-m", "almanac.core.ray_cli", "down"], clustered)
    assert "Ray processes stopped" in down.stdout and not any(node.is_running() for node in nodes)
    assert not Path(state["temp_dir"]).exists()
    # Every stage joined the two-node cluster (1 CPU per raylet) and none fell back or started its own.
    joined = f"joined Ray cluster at {state['address']} (2 CPUs)"
    assert {stage: joined in stderr for stage, stderr in said.items()} == dict.fromkeys(said, True), said
    assert not any("ray: could not start" in err or "started local Ray" in err for err in said.values())
    digests = output_digests(serial, OUTPUTS)
    assert any(name.startswith("data/dedup/signatures/") for name in digests), sorted(digests)
    assert any(name.startswith("data/articles/") for name in digests), sorted(digests)
    assert output_digests(clustered, OUTPUTS) == digests
