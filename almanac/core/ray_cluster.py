"""The project's own local Ray cluster: one runtime for a whole ``dvc repro`` instead of one per stage.

``make ray-up`` starts a head node (``ray start --head --block``) bound to 127.0.0.1 with Ray's token auth
on, and records its address, token, Ray temp folder and node processes in ``.ray/cluster.json`` (mode
0600, git-ignored). Stages with ``ray.address: auto`` join the cluster that file names and no other: Ray's
own discovery (``RAY_ADDRESS``, ``/tmp/ray``) would find whichever cluster on the machine started last.
``make ray-down`` stops exactly the processes recorded there (checked by start time, so a recycled pid
is never signalled) and whatever still runs from the cluster's private temp folder.

Multi-node on one machine (tests): :func:`add_node` starts a worker node the same way; Ray's ``ray start``
refuses worker nodes unless its "multi-node cluster" switch is on, and that switch also makes it trade
127.0.0.1 for the machine's routable address, so worker nodes go through ``almanac.core.ray_node``.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from almanac.core.layout import ray_cluster_file
from almanac.core.lazy import lazy_module
from almanac.core.stage import StageError

if TYPE_CHECKING:
    import psutil
else:  # only the cluster's start and stop need it, not every stage that imports this module
    psutil = lazy_module("psutil")

TEMP_PARENT = "/tmp"  # short: Ray's socket paths live in the temp folder
TEMP_PREFIX = "almanac-ray-"
PRIVATE_UMASK = 0o077  # Ray's folders and sockets readable by this user only

LOOPBACK = "127.0.0.1"
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0
READY_LINE = "Ray runtime started"  # what `ray start` prints once the node serves


class ClusterError(StageError):
    """The project's cluster is missing, stale or failed to start: a stage exits 1 with this one line."""


@dataclass(frozen=True)
class Node:
    pid: int
    create_time: float  # with the pid, identifies the process (pids are recycled)
    log: str


@dataclass(frozen=True)
class ProjectCluster:
    address: str  # 127.0.0.1:<GCS port>
    token: str
    temp_dir: str  # Ray's session files and sockets; made by mkdtemp, so no other cluster uses it
    nodes: tuple[Node, ...]


def use_loopback_and_token(token: str) -> None:
    """Make this process's Ray keep 127.0.0.1 for its listeners and authenticate with ``token``.

    Ray swaps a loopback node address for the machine's routable IP (and then listens on every
    interface) unless its "multi-node cluster" switch is off. The token goes to this process's
    environment (children inherit it) and Ray's caches are re-read; nothing is written to ``~/.ray``.
    """
    from ray._private import ray_constants
    from ray._raylet import AuthenticationTokenLoader, Config  # type: ignore[attr-defined]

    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # what ray_constants reads at import
    ray_constants.ENABLE_RAY_CLUSTER = False  # the same switch, for a Ray imported before this call
    os.environ["RAY_AUTH_MODE"] = "token"
    os.environ["RAY_AUTH_TOKEN"] = token
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def read_cluster(root: Path = Path()) -> ProjectCluster:
    """The running cluster ``make ray-up`` started for the project at ``root``, or a ClusterError."""
    path = root / ray_cluster_file()
    if not path.is_file():
        raise ClusterError(
            f"ray.address is 'auto' but no project Ray cluster runs ({path} missing): "
            'run `make ray-up`, or set ray.address: "" for a private runtime per stage'
        )
    raw = json.loads(path.read_text(encoding="utf-8"))
    cluster = ProjectCluster(
        raw["address"], raw["token"], raw["temp_dir"], tuple(Node(**node) for node in raw["nodes"])
    )
    if not cluster.nodes or _process(cluster.nodes[0]) is None:
        raise ClusterError(f"the project Ray cluster in {path} is gone (its head node ended): `make ray-up`")
    return cluster


def start_cluster(root: Path, num_cpus: int, object_store_mb: int) -> ProjectCluster:
    """Start the head node, or return the cluster already running for ``root``."""
    path = root / ray_cluster_file()
    if path.is_file():
        try:
            return read_cluster(root)
        except ClusterError:
            stop_cluster(root)  # leftovers of a dead cluster: clear them before starting afresh
    port = _free_port()
    token = secrets.token_hex(32)
    temp_dir = private_temp_dir()
    command = [
        str(Path(sys.executable).with_name("ray")), "start", "--head", "--port", str(port),
        "--include-dashboard", "false", "--temp-dir", ray_temp_dir(temp_dir),
        *_node_args(num_cpus, object_store_mb),
    ]  # fmt: skip
    head = _start_node(command, token, Path(temp_dir) / "head.log")
    cluster = ProjectCluster(f"{LOOPBACK}:{port}", token, temp_dir, (head,))
    _write_state(path, cluster)
    try:
        _wait_ready(head)
    except ClusterError:
        stop_cluster(root)
        raise
    seal_temp_dir(temp_dir)
    return cluster


def add_node(root: Path, num_cpus: int, object_store_mb: int) -> ProjectCluster:
    """Start one more (worker) node on this machine and record it; returns the updated cluster."""
    cluster = read_cluster(root)
    log = Path(cluster.temp_dir) / f"node-{len(cluster.nodes)}.log"
    # No log monitor of its own: the nodes of this machine share the head's session folder, whose log monitor
    # already sends every worker's lines to the drivers (a second one sent each line twice, and cost a
    # Python process polling the same files; Ray's help: one log monitor per physical host).
    command = [
        sys.executable, "-m", "almanac.core.ray_node", "start", "--address", cluster.address,
        "--include-log-monitor", "false", *_node_args(num_cpus, object_store_mb),
    ]  # fmt: skip
    node = _start_node(command, cluster.token, log)
    cluster = ProjectCluster(cluster.address, cluster.token, cluster.temp_dir, (*cluster.nodes, node))
    _write_state(root / ray_cluster_file(), cluster)
    _wait_ready(node)
    seal_temp_dir(cluster.temp_dir)
    return cluster


def stop_cluster(root: Path = Path()) -> int:
    """Stop the recorded nodes (workers first) and their children; returns how many processes ended.

    Only processes this cluster started are signalled: the recorded node processes (pid and start time
    must match), their descendants, and processes of this user whose command line names the cluster's
    private temp folder (Ray processes orphaned by a killed node).
    """
    path = root / ray_cluster_file()
    if not path.is_file():
        return 0
    raw = json.loads(path.read_text(encoding="utf-8"))
    targets: list[psutil.Process] = []
    for node in reversed([Node(**node) for node in raw["nodes"]]):
        process = _process(node)
        if process is not None:
            targets += [process, *_descendants(process)]
            with contextlib.suppress(psutil.NoSuchProcess):
                process.send_signal(signal.SIGTERM)  # `ray start --block` stops its node on SIGTERM
    targets += _by_temp_dir(raw["temp_dir"])
    _, alive = psutil.wait_procs(_unique(targets), timeout=STOP_TIMEOUT_S)
    for process in alive:
        process.kill()
    psutil.wait_procs(alive, timeout=STOP_TIMEOUT_S)
    remove_temp_dir(Path(raw["temp_dir"]))
    path.unlink()
    return len(_unique(targets))


def private_temp_dir() -> str:
    """A fresh holder for a Ray temp folder, 0700 (mkdtemp): short, since Ray's socket paths live in it.

    Ray's own folder is ``<holder>/ray`` (:func:`ray_temp_dir`): Ray chmods every folder it makes
    (the temp folder itself, sessions, sockets/, logs/, runtime_resources/) to 0777, so the holder,
    which Ray never touches, is what keeps other users out whatever Ray does inside;
    :func:`seal_temp_dir` then takes the 0777 back.
    """
    return tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=TEMP_PARENT)


def ray_temp_dir(holder: str) -> str:
    return os.path.join(holder, "ray")


def seal_temp_dir(holder: str) -> None:
    """Every folder below ``holder`` back to 0700 once Ray is up (Ray made them 0777 on purpose, to share
    /tmp/ray between users); links are not followed, and only this user's folders are touched."""
    for parent, dirs, _ in os.walk(holder):  # os.walk does not descend into linked folders
        for name in [".", *dirs]:
            path = os.path.join(parent, name)
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
                    os.chmod(path, 0o700, follow_symlinks=False)


@contextlib.contextmanager
def private_umask() -> Iterator[None]:
    """umask 077 while Ray starts: the files and sockets it makes (and its processes, which inherit the
    umask, make later) are this user's only; folders Ray chmods itself are sealed by seal_temp_dir."""
    previous = os.umask(PRIVATE_UMASK)
    try:
        yield
    finally:
        os.umask(previous)


def remove_temp_dir(folder: Path) -> None:
    """Remove a Ray temp folder, only if it is one :func:`private_temp_dir` made (mkdtemp under /tmp
    with our prefix, ours, a real folder): the state file is edited by hand at times. rmtree does not
    follow symlinks inside it."""
    made_by_us = (
        folder.parent == Path(TEMP_PARENT)
        and folder.name.startswith(TEMP_PREFIX)
        and not folder.is_symlink()
        and folder.is_dir()
        and folder.stat().st_uid == os.getuid()
    )
    if made_by_us:
        shutil.rmtree(folder, ignore_errors=True)


def _node_args(num_cpus: int, object_store_mb: int) -> list[str]:
    return [
        "--block", "--node-ip-address", LOOPBACK, "--disable-usage-stats",
        "--num-cpus", str(num_cpus or os.cpu_count() or 1),
        "--object-store-memory", str(object_store_mb * 2**20),
    ]  # fmt: skip


def _start_node(command: list[str], token: str, log: Path) -> Node:
    env = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": token,
        "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",  # listeners on 127.0.0.1 (see use_loopback_and_token)
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    env.pop("RAY_ADDRESS", None)
    with log.open("w", encoding="utf-8") as handle:
        # Its own session: the node outlives `make ray-up` and a Ctrl-C in the terminal that started it.
        popen = subprocess.Popen(
            command,
            env=env,
            stdout=handle,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            umask=PRIVATE_UMASK,  # every folder the node makes in its temp folder is 0700
        )
    return Node(popen.pid, psutil.Process(popen.pid).create_time(), str(log))


def _wait_ready(node: Node) -> None:
    log = Path(node.log)
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8", errors="replace")
        if READY_LINE in text:
            return
        if _process(node) is None:
            last = " | ".join(line.strip() for line in text.strip().splitlines()[-3:])
            raise ClusterError(f"ray start exited before the node was up ({log}): {last}")
        time.sleep(0.2)
    raise ClusterError(f"Ray node not up after {START_TIMEOUT_S:.0f} s (see {log})")


def _write_state(path: Path, cluster: ProjectCluster) -> None:
    """Atomically, readable by this user only: the file holds the cluster's auth token."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}")
    descriptor = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(asdict(cluster), handle, indent=2, sort_keys=True)
    os.replace(temp, path)


def _process(node: Node) -> psutil.Process | None:
    try:
        process = psutil.Process(node.pid)
        if abs(process.create_time() - node.create_time) < 0.01 and process.is_running():
            return process if process.status() != psutil.STATUS_ZOMBIE else None
    except psutil.NoSuchProcess:
        pass
    return None


def _descendants(process: psutil.Process) -> list[psutil.Process]:
    try:
        return list(process.children(recursive=True))
    except psutil.NoSuchProcess:
        return []


def _by_temp_dir(temp_dir: str) -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter(["uids", "cmdline"]):
        try:
            mine = process.info["uids"].real == os.getuid()
            if mine and temp_dir in " ".join(process.info["cmdline"] or []):
                found.append(process)
        except (psutil.NoSuchProcess, psutil.AccessDenied, AttributeError):
            continue
    return found


def _unique(processes: list[psutil.Process]) -> list[psutil.Process]:
    return list({process.pid: process for process in processes if process.pid != os.getpid()}.values())


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return int(sock.getsockname()[1])
