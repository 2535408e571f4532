"""The Ray paths: a local instance shared by the tests, and the project cluster (`make ray-up`) with two nodes,
also for the stages themselves (ccnews_ingest, dedup_signatures, dedup as stage processes joining it)."""

from __future__ import annotations

import functools
import hashlib
import ipaddress
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pyarrow as pa
import pytest

from almanac.core.parallel import RayConfig, init_ray, parallel_map, parallel_stream
from almanac.core.ray_cluster import (
    TEMP_PARENT,
    TEMP_PREFIX,
    read_cluster,
)
from almanac.core.schemas import ARTICLE_SCHEMA, table_from_rows
from tests.support.project import make_project, output_digests, run
from tests.test_dedup import article, edit, random_text

pytestmark = [pytest.mark.ray, pytest.mark.slow]  # a real Ray instance takes ~15 s to start


def slow_square(value: int) -> tuple[int, int]:
    # Later items finish first, so results only come back in order if parallel_map reorders them.
    time.sleep(0.02 * (5 - value % 5))
    return value, value * value


# Module-scoped, not session-scoped: an idle local Ray (GCS, raylet, agents, two idle workers) burns ~6% of
# a core, which over the rest of a worker's session (minutes) was CPU taken from the tests on 2 cores.
@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    import ray

    init_ray(RayConfig(num_cpus=2, object_store_mb=256))
    yield
    ray.shutdown()


def test_parallel_map_on_local_ray_matches_serial_in_order(local_ray: None) -> None:
    items = list(range(12))
    config = RayConfig(max_in_flight=3, min_bytes=0)
    assert parallel_map(slow_square, items, config) == parallel_map(
        slow_square, items, RayConfig(executor="serial")
    )


def test_parallel_map_runs_on_ray_workers(local_ray: None) -> None:
    pids = set(parallel_map(_worker_pid, list(range(4)), RayConfig(min_bytes=0)))
    assert os.getpid() not in pids


def test_parallel_stream_on_local_ray_yields_every_item_in_order(local_ray: None) -> None:
    # Two in flight and 11 items: the window refills many times, and results come back out of order
    # (slow_square sleeps longer for smaller values), so every refill path is taken.
    config = RayConfig(max_in_flight=2, min_bytes=0)
    found = list(parallel_stream(slow_square, iter(range(11)), config, count=11, input_bytes=0))
    assert found == [(value, value * value) for value in range(11)]


def _scaled(value: int, factor: int) -> tuple[int, int]:
    return value * factor, os.getpid()


def test_a_partial_runs_on_ray_workers(local_ray: None) -> None:
    # Ray's decorator takes functions only; a functools.partial goes through a module-level trampoline.
    found = parallel_map(functools.partial(_scaled, factor=3), list(range(6)), RayConfig(min_bytes=0))
    assert [value for value, _ in found] == [0, 3, 6, 9, 12, 15]
    assert os.getpid() not in {pid for _, pid in found}


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

    parallel_map(_worker_pid, list(range(4)), RayConfig(min_bytes=0))  # workers are up and listening
    listeners = _ray_listeners()
    assert {"gcs_server", "raylet"} <= set(listeners), listeners
    assert {name: ips for name, ips in listeners.items() if not all(map(_loopback, ips))} == {}
    assert get_authentication_mode() == AuthenticationMode.TOKEN


# One private Ray in a child process serves two tests (a Ray start is ~10 s of CPU): it runs one task on a
# worker (so the workers' folders exist too), lists every folder below Ray's temp folder with its mode, lets
# an intruder with a wrong token try to join, and exits.
PRIVATE_RAY_SCRIPT = """
import json, os, subprocess, sys
import ray
from almanac.core.parallel import RayConfig, init_ray

def square(value):
    return value * value

init_ray(RayConfig(num_cpus=1, object_store_mb=100))
assert ray.get(ray.remote(square).remote(7)) == 49
session = ray._private.worker.global_worker.node.get_session_dir_path()
root = os.path.dirname(os.path.dirname(session))  # <holder>/ray/session_...
folders = {}
for parent, dirs, _ in os.walk(root):
    for name in dirs:
        path = os.path.join(parent, name)
        if not os.path.islink(path):  # session_latest is a link (mode 0777 by nature, never followed)
            folders[os.path.relpath(path, root)] = os.lstat(path).st_mode & 0o777
folders["."] = os.lstat(root).st_mode & 0o777
gcs = ray._private.worker._global_node.gcs_address
# RAY_gcs_server_port_wait_time_s: the client's GCS connect attempts (~1 s each, 20 by default): each is
# refused for the same wrong token, so 2 say as much as 20 (~4 s instead of ~22 s of waiting).
intruder = subprocess.run(
    [sys.executable, "-c", f"import ray; ray.init(address={gcs!r})"],
    env={
        **os.environ, "RAY_ADDRESS": "", "RAY_AUTH_TOKEN": "not-the-token",
        "RAY_gcs_server_port_wait_time_s": "2",
    },
    capture_output=True, text=True, timeout=120,
)
print(json.dumps({
    "gcs": gcs, "intruder_rc": intruder.returncode, "intruder_err": intruder.stderr[-2000:],
    "root": root, "session": session, "folders": folders,
}))
ray.shutdown()
"""


@pytest.fixture(scope="module")
def private_ray_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """PRIVATE_RAY_SCRIPT's findings, and the HOME it ran with. RAY_ADDRESS names a cluster, but ray.address
    is "": a private local instance starts anyway, with a token from the environment only."""
    home = tmp_path_factory.mktemp("home")
    env = {**os.environ, "RAY_ADDRESS": "127.0.0.1:9", "HOME": str(home), "RAY_USAGE_STATS_ENABLED": "0"}
    for name in ("RAY_AUTH_MODE", "RAY_AUTH_TOKEN", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", PRIVATE_RAY_SCRIPT],
        cwd=Path(__file__).resolve().parents[1],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1]), home


@pytest.mark.slow  # ~15 s: a private Ray start, and the intruder's client tries twice before giving up
def test_local_ray_ignores_ray_address_and_refuses_a_wrong_token(
    private_ray_run: tuple[dict[str, Any], Path],
) -> None:
    result, home = private_ray_run
    assert result["gcs"].startswith("127.0.0.1:") and not result["gcs"].endswith(":9")
    assert result["intruder_rc"] != 0 and "InvalidAuthToken" in result["intruder_err"], result
    assert list(home.iterdir()) == []  # nothing written to ~/.ray


def test_private_ray_uses_its_own_0700_temp_folder_removed_at_exit(
    private_ray_run: tuple[dict[str, Any], Path],
) -> None:
    """Ray's temp folders are this user's only (0700), and the private Ray keeps its own, removed at exit
    (issue 24)."""
    result, _ = private_ray_run
    root = Path(result["root"])
    # Its own folder made by mkdtemp under /tmp, not the shared /tmp/ray.
    assert root.parent == Path(TEMP_PARENT) and root.name.startswith(TEMP_PREFIX), root
    assert Path(result["session"]).is_relative_to(root)
    folders: dict[str, int] = result["folders"]
    # The folders the issue names, and every other one Ray made, are this user's only.
    assert folders["."] == 0o700 and folders["ray"] == 0o700
    names = {Path(relative).name for relative in folders}
    assert {"sockets", "runtime_resources", "logs"} <= names, sorted(names)
    assert {relative: oct(mode) for relative, mode in folders.items() if mode & 0o077} == {}
    assert not os.path.lexists(root)  # removed when the process exited


# The project cluster (`make ray-up RAY_NODES=2`: `python -m almanac.core.ray_cli up --nodes 2`) in a scratch
# project, shared by this module's cluster tests (a two-raylet start is ~20 s of CPU): the stages' test below
# runs its stages in that project. Two of the sample's months are enough for what Ray changes (several
# signing tasks per month, dedup across months); signing in batches of 3 articles (several tasks per crawl
# month), banding in 2 shards, in the cluster's project and in the serial one alike.
STAGE_MONTHS = ("2025-05", "2025-06")
STAGE_PARAMS = {"months": list(STAGE_MONTHS), "dedup__sign_batch_rows": 3, "dedup__band_shards": 2}
STAGE_OUTPUTS = ("data/ingest", "data/dedup", "data/articles")


@pytest.fixture(scope="module")
def project_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A project whose cluster `ray_cli up --nodes 2` started: two raylets on 127.0.0.1, 1 CPU each, token
    auth; stages there join it (``ray.address: auto``, no size floor so the sample's few items go to Ray).
    `ray_cli down` stops exactly it at the end."""
    root = make_project(
        tmp_path_factory.mktemp("cluster") / "project",
        ray__address="auto",
        ray__executor="ray",
        ray__min_bytes=0,
        ray__num_cpus=1,
        ray__object_store_mb=100,
        **STAGE_PARAMS,
    )
    up = run([sys.executable, "-m", "almanac.core.ray_cli", "up", "--nodes", "2"], root)
    cluster = read_cluster(root)
    started = [psutil.Process(node.pid) for node in cluster.nodes]
    tree = [*started, *(child for node in started for child in node.children(recursive=True))]
    try:
        assert "2 node(s)" in up.stdout, up.stdout
        yield root
    finally:
        down = run([sys.executable, "-m", "almanac.core.ray_cli", "down"], root)
        assert "Ray processes stopped" in down.stdout, down.stdout
        assert [process.pid for process in tree if process.is_running()] == []
        assert not Path(cluster.temp_dir).exists() and not (root / ".ray" / "cluster.json").exists()


def test_project_cluster_listens_on_loopback_only_with_token_auth(project_cluster: Path) -> None:
    cluster = read_cluster(project_cluster)
    assert cluster.address.startswith("127.0.0.1:") and len(cluster.nodes) == 2
    listeners: dict[str, set[str]] = {}
    for node in cluster.nodes:
        head = psutil.Process(node.pid)
        assert head.environ()["RAY_AUTH_MODE"] == "token"
        for process in [head, *head.children(recursive=True)]:
            for connection in process.net_connections(kind="inet"):
                if connection.status == psutil.CONN_LISTEN or connection.type == socket.SOCK_DGRAM:
                    listeners.setdefault(process.name(), set()).add(connection.laddr.ip)
    assert {"gcs_server", "raylet"} <= set(listeners), listeners
    assert {name: ips for name, ips in listeners.items() if not all(map(_loopback, ips))} == {}
    assert (project_cluster / ".ray").stat().st_mode & 0o077 == 0
    assert (project_cluster / ".ray" / "cluster.json").stat().st_mode & 0o077 == 0
    # Ray's temp folder lies in a holder that is this user's only (0700, ours, not a link). Ray chmods every
    # folder it makes to 0777; they are sealed after each node starts, but one Ray makes later (logs/old,
    # seen under load) is 0777 again: the holder is what keeps other users out of all of them.
    holder = Path(cluster.temp_dir)
    assert not holder.is_symlink() and holder.lstat().st_uid == os.getuid()
    assert holder.lstat().st_mode & 0o077 == 0
    folders = [p for p in holder.rglob("*") if p.is_dir()]
    assert {"sockets", "runtime_resources"} <= {folder.name for folder in folders}


def dedup_corpus() -> pa.Table:
    """Two months of articles with planted near-duplicates (edited copies) and exact re-crawls."""
    rows = []
    for index in range(240):
        month = "2025-04" if index % 2 else "2025-05"
        text = random_text(index)
        rows.append(article(text, f"https://a{index % 7}.example/{index}", 1 + index % 28, month))
        if index % 5 == 0:  # an edited copy, later, on another site: dropped as a near-duplicate
            copy = edit(text, 0.03, index)
            rows.append(article(copy, f"https://b.example/{index}", 1 + (index + 3) % 28, month))
        if index % 17 == 0:  # the same URL and text again: dropped as a duplicate id
            rows.append(article(text, f"https://a{index % 7}.example/{index}", 1 + index % 28, month))
    return table_from_rows(rows, ARTICLE_SCHEMA)


DEDUP_ON_CLUSTER = """
import json, sys, time
import ray
from almanac.core.io import write_json, write_month_partitions, write_parquet
from almanac.core.parallel import RayConfig, parallel_map
from almanac.dedup.near_duplicates import DedupConfig, deduplicate
from tests.test_ray import dedup_corpus

def node_of(_):  # defined here: Ray ships __main__ functions by value (workers cannot import tests/)
    time.sleep(0.5)  # long enough that one node's single CPU cannot take every task in turn
    return ray.get_runtime_context().get_node_id()

months = ["2025-04", "2025-05"]
articles = dedup_corpus()
runs = {
    "serial": RayConfig(executor="serial"),
    "cluster": RayConfig(address="auto", min_bytes=0, max_in_flight=12),
}
for name, ray_config in runs.items():
    # 25 articles per signing task: 12 tasks, all queued at once, spread over both single-CPU nodes.
    kept, ledger = deduplicate(articles, months, DedupConfig(docs_per_task=25), ray_config)
    write_month_partitions(kept, f"{name}/articles", months, "publish_month")
    write_parquet(ledger.rejects_table(), f"{name}/rejects.parquet")
    write_json(ledger.metrics(), f"{name}/metrics.json")
nodes = set(parallel_map(node_of, list(range(8)), runs["cluster"]))
alive = [node for node in ray.nodes() if node["Alive"]]
print(json.dumps({"task_nodes": len(nodes), "alive_nodes": len(alive), "address": ray.get_runtime_context().gcs_address}))
"""


def _tree_digests(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


def test_dedup_on_a_two_node_cluster_is_byte_identical_to_in_process(project_cluster: Path) -> None:
    work = project_cluster / "dedup"
    work.mkdir()
    shutil.copytree(project_cluster / ".ray", work / ".ray")  # `auto` reads the project's cluster file
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "RAY_ADDRESS": "127.0.0.1:9"}
    env.pop("RAY_AUTH_TOKEN", None)  # the token comes from the cluster file only
    done = subprocess.run(
        [sys.executable, "-c", DEDUP_ON_CLUSTER],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["alive_nodes"] == 2 and found["task_nodes"] == 2, found
    assert found["address"] == read_cluster(project_cluster).address
    serial = _tree_digests(work / "serial")
    assert {"articles/2025-04.parquet", "articles/2025-05.parquet", "rejects.parquet"} <= set(serial)
    assert _tree_digests(work / "cluster") == serial
    metrics = json.loads((work / "serial" / "metrics.json").read_text())
    assert metrics["rejected_by_reason"]["near_duplicate"] > 0, metrics


def _stage_commands() -> list[list[str]]:
    """ccnews_ingest, dedup_signatures and dedup for every crawl month, in dependency order."""
    commands = [["stages.ccnews_ingest", "--month", month] for month in STAGE_MONTHS]
    commands += [["stages.dedup_signatures", "--month", month] for month in STAGE_MONTHS]
    return [*commands, ["stages.dedup"]]


def _stages(project: Path) -> dict[str, str]:
    """Run ccnews_ingest, dedup_signatures and dedup as stage processes for every crawl month; stderr of
    each, by stage name."""
    said = {}
    for module, *args in _stage_commands():
        name = module.removeprefix("stages.") + (f"@{args[1]}" if args else "")
        said[name] = run([sys.executable, "-m", module, *args], project).stderr
    return said


# The serial reference: the same stage modules run as `python -m` runs them (run_name "__main__", their
# arguments in sys.argv), one after another in one interpreter, which imports their libraries once (~3 s of
# CPU less than five processes). Only the cluster's run has to be stage processes: each joins the cluster.
SERIAL_STAGES = """
import json, runpy, sys
for argv in json.loads(sys.argv[1]):
    sys.argv = argv
    try:
        runpy.run_module(argv[0], run_name="__main__", alter_sys=True)
    except SystemExit as done:
        if done.code not in (0, None):
            raise SystemExit(f"{argv}: exit {done.code}") from None
"""


def test_ingest_signatures_and_dedup_on_a_two_raylet_cluster_match_the_serial_run(
    project_cluster: Path, tmp_path: Path
) -> None:
    """The stages themselves (never dedup internals) on the project cluster write the very bytes the
    serial run writes."""
    serial = make_project(tmp_path / "serial", ray__executor="serial", **STAGE_PARAMS)
    run([sys.executable, "-c", SERIAL_STAGES, json.dumps(_stage_commands())], serial)
    said = _stages(project_cluster)
    # Every stage joined the two-node cluster (1 CPU per raylet) and none fell back or started its own.
    joined = f"joined Ray cluster at {read_cluster(project_cluster).address} (2 CPUs)"
    assert {stage: joined in stderr for stage, stderr in said.items()} == dict.fromkeys(said, True), said
    assert not any("ray: could not start" in err or "started local Ray" in err for err in said.values())
    digests = output_digests(serial, STAGE_OUTPUTS)
    assert any(name.startswith("data/dedup/signatures/") for name in digests), sorted(digests)
    assert any(name.startswith("data/articles/") for name in digests), sorted(digests)
    assert output_digests(project_cluster, STAGE_OUTPUTS) == digests
