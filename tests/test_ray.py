"""The Ray paths: a local instance shared by the tests, and a real `ray start --head` cluster."""

from __future__ import annotations

import ipaddress
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from almanac.core.parallel import RayConfig, init_ray, parallel_map
from tests.support.project import BIN, make_project, output_digests, run

pytestmark = [pytest.mark.ray, pytest.mark.slow]  # a real Ray instance takes ~15 s to start


def slow_square(value: int) -> tuple[int, int]:
    # Later items finish first, so results only come back in order if parallel_map reorders them.
    time.sleep(0.02 * (5 - value % 5))
    return value, value * value


@pytest.fixture(scope="session")
def local_ray() -> Iterator[None]:
    import ray

    init_ray(RayConfig(num_cpus=2, object_store_mb=256))
    yield
    ray.shutdown()


def test_parallel_map_on_local_ray_matches_serial_in_order(local_ray: None) -> None:
    items = list(range(12))
    config = RayConfig(max_in_flight=3)
    assert parallel_map(slow_square, items, config) == parallel_map(
        slow_square, items, RayConfig(executor="serial")
    )


def test_parallel_map_runs_on_ray_workers(local_ray: None) -> None:
    pids = set(parallel_map(_worker_pid, list(range(4)), RayConfig()))
    assert os.getpid() not in pids


def _worker_pid(_: int) -> int:
    return os.getpid()


def _ray_listeners() -> dict[str, set[str]]:
    """Listening addresses per process name: this process (the driver) and all it started (GCS, raylet, ...)."""
    me = psutil.Process()
    found: dict[str, set[str]] = {}
    for process in [me, *me.children(recursive=True)]:
        try:
            name, connections = process.name(), process.net_connections(kind="inet")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        for connection in connections:
            if connection.status == psutil.CONN_LISTEN or connection.type == socket.SOCK_DGRAM:
                found.setdefault(name, set()).add(connection.laddr.ip)
    return found


def _loopback(ip: str) -> bool:
    address = ipaddress.ip_address(ip.split("%")[0])
    mapped = getattr(address, "ipv4_mapped", None)  # ::ffff:127.0.0.1 is 127.0.0.1 on a dual-stack socket
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


def test_local_ray_listens_on_loopback_only_with_token_auth(local_ray: None) -> None:
    from ray._raylet import AuthenticationMode, get_authentication_mode  # type: ignore[attr-defined]

    parallel_map(_worker_pid, list(range(4)), RayConfig())  # worker processes are up and listening
    listeners = _ray_listeners()
    assert {"gcs_server", "raylet"} <= set(listeners), listeners
    assert {name: ips for name, ips in listeners.items() if not all(map(_loopback, ips))} == {}
    assert get_authentication_mode() == AuthenticationMode.TOKEN


LOCAL_RAY_SCRIPT = """
import json, os, subprocess, sys
import ray
from almanac.core.parallel import RayConfig, init_ray

init_ray(RayConfig(num_cpus=1, object_store_mb=100))
gcs = ray._private.worker._global_node.gcs_address
intruder = subprocess.run(
    [sys.executable, "-c", f"import ray; ray.init(address={gcs!r})"],
    env={**os.environ, "RAY_ADDRESS": "", "RAY_AUTH_TOKEN": "not-the-token"},
    capture_output=True, text=True, timeout=120,
)
print(json.dumps({"gcs": gcs, "intruder_rc": intruder.returncode, "intruder_err": intruder.stderr[-2000:]}))
ray.shutdown()
"""


@pytest.mark.slow  # ~35 s: the intruder's client retries before giving up
def test_local_ray_ignores_ray_address_and_refuses_a_wrong_token(tmp_path: Path) -> None:
    # RAY_ADDRESS names a cluster, but ray.address is "": a private local instance starts anyway,
    # with a token from the environment only (nothing written to ~/.ray).
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "RAY_ADDRESS": "127.0.0.1:9", "HOME": str(home), "RAY_USAGE_STATS_ENABLED": "0"}
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", LOCAL_RAY_SCRIPT],
        cwd=Path(__file__).resolve().parents[1],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["gcs"].startswith("127.0.0.1:") and not result["gcs"].endswith(":9")
    assert result["intruder_rc"] != 0 and "InvalidAuthToken" in result["intruder_err"], result
    assert list(home.iterdir()) == []


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def ray_cluster() -> Iterator[str]:
    """`ray start --head --block` on 127.0.0.1; terminating the process stops the whole cluster."""
    port = _free_port()
    temp_dir = tempfile.mkdtemp(prefix="ray-", dir="/tmp")  # short path: Ray's sockets live there
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    command = [
        str(BIN / "ray"), "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
        "--port", str(port), "--num-cpus", "2", "--include-dashboard", "false",
        "--object-store-memory", str(200 * 2**20), "--temp-dir", temp_dir, "--disable-usage-stats",
    ]  # fmt: skip
    head = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    address = f"127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if head.poll() is not None:
                raise RuntimeError(f"ray start exited: {head.stdout.read() if head.stdout else ''}")
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.5)
        yield address
    finally:
        head.terminate()
        try:
            head.wait(timeout=60)
        except subprocess.TimeoutExpired:
            head.kill()


def test_stages_on_a_ray_cluster_match_the_serial_run(ray_cluster: str, tmp_path: Path) -> None:
    serial = make_project(tmp_path / "serial", ray__executor="serial")
    for month in ("2025-04", "2025-05", "2025-06"):
        run([sys.executable, "-m", "stages.ccnews_ingest", "--month", month], serial)
    run([sys.executable, "-m", "stages.dedup"], serial)
    # On the cluster: one month's ingest (the other months copied over) and the cross-month dedup.
    clustered = make_project(tmp_path / "cluster", ray__address="auto", ray__executor="ray")
    for month in ("2025-04", "2025-06"):
        shutil.copytree(serial / "data/ingest" / month, clustered / "data/ingest" / month)
    stage_env = {"RAY_ADDRESS": ray_cluster, "RAY_AUTH_MODE": "disabled"}
    ingest = run(
        [sys.executable, "-m", "stages.ccnews_ingest", "--month", "2025-05"], clustered, extra_env=stage_env
    )
    run([sys.executable, "-m", "stages.dedup"], clustered, extra_env=stage_env)
    # Ray reports the node's own address for the GCS; the port identifies the cluster this test started.
    port = ray_cluster.rsplit(":", 1)[1]
    assert re.search(rf"joined Ray cluster at [\d.]+:{port} \(2 CPUs\)", ingest.stderr), ingest.stderr
    digests = output_digests(serial)
    assert digests and output_digests(clustered) == digests
