"""Ray runtime: in-process below a size threshold, else a private local Ray, the project's cluster or any.

The threshold is the call's input size (work items, and bytes the items carry or name), never a timing:
on a loaded machine a timed pilot makes small work look big. A private Ray that fails to start leaves
the call in-process with a one-line note; outputs are the same either way.

The same stage code runs on every path: stages call :func:`parallel_map` with a module-level
function and a list of work items and get results back in input order (which keeps outputs
byte-identical however many workers ran, and on which executor).
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import functools
import inspect
import ipaddress
import logging
import os
import secrets
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from almanac.core.progress import Bar, progress
from almanac.core.ray_cluster import (
    LOOPBACK,
    ClusterError,
    private_temp_dir,
    private_umask,
    ray_temp_dir,
    read_cluster,
    remove_temp_dir,
    seal_temp_dir,
    use_loopback_and_token,
)

T = TypeVar("T")
R = TypeVar("R")

EXECUTORS = ("ray", "serial")
PROJECT_CLUSTER = "auto"
_log = logging.getLogger("almanac.ray")


@dataclass(frozen=True)
class RayConfig:
    address: str = ""  # "" = private local Ray; "auto" = the project's `make ray-up` cluster; or an address
    num_cpus: int = 0  # local and `make ray-up` only; 0 = every core of this machine
    object_store_mb: int = 512  # small machines: the default (30% of RAM) starves the workers
    executor: str = "ray"  # "ray" or "serial" (no Ray at all: tests, debugging)
    max_in_flight: int = 0  # tasks submitted at once; 0 = twice the cluster's CPUs
    min_items: int = 2  # a call with fewer work items runs in-process, without starting or joining Ray
    min_bytes: int = 64 * 2**20  # ... and so does one whose items carry or name fewer bytes (0 = no floor)

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise ValueError(f"ray.executor must be one of {EXECUTORS}, got {self.executor!r}")
        if self.min_items < 0 or self.min_bytes < 0:
            raise ValueError("ray.min_items and ray.min_bytes must be >= 0")

    def runs_in_process(self, items: int, input_bytes: int | None = None) -> bool:
        """Whether a call runs here: serial executor, too few items, or (when given) too few input bytes."""
        if self.executor == "serial" or items < max(2, self.min_items):
            return True
        return input_bytes is not None and input_bytes < self.min_bytes


def item_bytes(item: object) -> int:
    """Bytes of input one work item carries (arrays, texts, lists of them) or names (a file: its size).

    Dataclass items (the stages' task records) count their fields; a field called ``path`` names a file
    read by the worker and counts its size on disk. Anything else (numbers, configs' scalars) counts 0.
    Texts count characters, not UTF-8 bytes: the threshold needs a size, not an exact one, cheaply.
    """
    if isinstance(item, np.ndarray):
        return int(item.nbytes)
    if isinstance(item, str | bytes | bytearray):
        return len(item)
    if isinstance(item, list | tuple):
        return sum(item_bytes(part) for part in item)
    if isinstance(item, os.PathLike):
        return _file_size(item)
    if dataclasses.is_dataclass(item) and not isinstance(item, type):
        total = 0
        for field in dataclasses.fields(item):
            value = getattr(item, field.name)
            total += _file_size(value) if field.name == "path" else item_bytes(value)
        return total
    return 0


def _file_size(path: object) -> int:
    try:
        return os.stat(path).st_size if isinstance(path, str | os.PathLike) else 0
    except OSError:
        return 0  # a missing file is the worker's reject to report, not the threshold's concern


def init_ray(config: RayConfig) -> None:
    """Start or join Ray once per process; later calls are no-ops."""
    import ray

    if ray.is_initialized():
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if config.address == PROJECT_CLUSTER:
        # Only the cluster `make ray-up` recorded for this project: Ray's own "auto" would take
        # RAY_ADDRESS or the cluster last started anywhere on the machine.
        cluster = read_cluster(Path())
        use_loopback_and_token(cluster.token)
        context: Any = ray.init(address=cluster.address, logging_level=logging.WARNING, log_to_driver=True)
        _log.info("joined Ray cluster at %s (%s)", context.address_info.get("gcs_address"), _cpus())
        return
    if config.address:
        context = ray.init(address=config.address, logging_level=logging.WARNING, log_to_driver=True)
        _log.info("joined Ray cluster at %s (%s)", context.address_info.get("gcs_address"), _cpus())
        return
    # The token comes from the environment (RAY_AUTH_TOKEN) or is made here, for this process only.
    use_loopback_and_token(os.environ.get("RAY_AUTH_TOKEN") or secrets.token_hex(32))
    # A temp folder of its own (in a 0700 holder, removed at exit), not the shared /tmp/ray: its sessions,
    # logs and sockets are this process's; umask 077 while Ray starts and a seal once it is up make every
    # folder and socket there this user's only (Ray itself makes them 0777; see ray_cluster).
    temp_dir = private_temp_dir()
    atexit.register(_stop_private_ray, temp_dir)  # runs before Ray's own exit hook (atexit is LIFO)
    # address="local": never join a cluster found through RAY_ADDRESS or /tmp/ray (only ray.address does).
    with private_umask():
        context = ray.init(
            address="local",
            num_cpus=config.num_cpus or os.cpu_count() or 1,
            object_store_memory=config.object_store_mb * 2**20,
            include_dashboard=False,
            dashboard_host=LOOPBACK,
            logging_level=logging.WARNING,
            _node_ip_address=LOOPBACK,
            _temp_dir=ray_temp_dir(temp_dir),
        )
    seal_temp_dir(temp_dir)
    node_ip = str(context.address_info.get("node_ip_address", ""))
    if not ipaddress.ip_address(node_ip).is_loopback:
        ray.shutdown()
        raise RuntimeError(f"local Ray took node address {node_ip}, not loopback: refusing to run on it")
    _log.info("started local Ray on %s (%s)", node_ip, _cpus())


def _stop_private_ray(temp_dir: str) -> None:
    """At exit: stop the private Ray, then remove its temp folder (only the one mkdtemp made for it)."""
    import ray

    ray.shutdown()
    remove_temp_dir(Path(temp_dir))


def _cpus() -> str:
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return f"{int(resources.get('CPU', 0))} CPUs"


def parallel_map(
    fn: Callable[[T], R], items: Sequence[T], config: RayConfig, desc: str = "", unit: str = "task"
) -> list[R]:
    """``[fn(item) for item in items]``, spread over Ray workers when the work is big enough to pay.

    In-process, without importing Ray: the serial executor, fewer than ``ray.min_items`` items (always
    a single item), and items carrying or naming fewer than ``ray.min_bytes`` bytes in all
    (:func:`item_bytes`). Starting or joining a runtime costs seconds that little work does not earn
    back; the results are the same on every path, in input order. If Ray does not come up, the call
    runs in-process after a one-line note on stderr.
    A progress bar (``desc``, default the function's name) counts finished items in this
    process; Ray workers draw none (their stderr is no TTY).
    """
    name = desc or getattr(fn, "__name__", type(fn).__name__).lstrip("_")
    bar: Bar[None] = progress(desc=name, unit=unit, total=len(items))
    try:
        return _map(fn, items, config, bar)
    finally:
        bar.close()


def _map(fn: Callable[[T], R], items: Sequence[T], config: RayConfig, bar: Bar[None]) -> list[R]:
    if config.runs_in_process(len(items)):
        return _serial_map(fn, items, bar)
    size = sum(item_bytes(item) for item in items) if config.min_bytes else 0  # 0: no floor to check
    if config.runs_in_process(len(items), size) or not _ray_up(config, len(items), size):
        return _serial_map(fn, items, bar)
    return list(_ray_stream(fn, iter(items), config, bar))


def parallel_stream(
    fn: Callable[[T], R],
    items: Iterable[T],
    config: RayConfig,
    count: int,
    input_bytes: int,
    desc: str = "",
    unit: str = "task",
) -> Iterator[R]:
    """``fn(item)`` for ``count`` items drawn lazily from ``items``, yielded in input order.

    For work too big to hold at once (a month's texts, batch by batch): at most ``ray.max_in_flight``
    items are read ahead. Ray or in-process is decided once, from ``count`` and ``input_bytes`` (what
    the caller reads, e.g. the input files' sizes), as :func:`parallel_map` decides from its items.
    """
    name = desc or getattr(fn, "__name__", type(fn).__name__).lstrip("_")
    bar: Bar[None] = progress(desc=name, unit=unit, total=count)
    try:
        if config.runs_in_process(count, input_bytes) or not _ray_up(config, count, input_bytes):
            for item in items:
                yield fn(item)
                bar.update()
        else:
            yield from _ray_stream(fn, iter(items), config, bar)
    finally:
        bar.close()


def _ray_up(config: RayConfig, count: int, size: int) -> bool:
    """Start or join Ray; False (after a one-line note) when it does not come up: run in-process."""
    try:
        init_ray(config)
    except ClusterError:
        raise  # ray.address names a project cluster that is not there: the user's setting, said loudly
    except Exception as error:  # any start failure: in-process gives the same results
        cause = " ".join(str(error).split())[:300] or type(error).__name__
        note = f"ray: could not start or join Ray ({cause}); running {count} items in-process"
        print(note, file=sys.stderr)
        _shutdown_quietly()
        return False
    _log.info("%d items, %d bytes of input: running them on Ray", count, size)
    return True


def _shutdown_quietly() -> None:
    """Undo a half-started runtime so a later call in this process tries afresh (or fails over again)."""
    import ray

    with contextlib.suppress(Exception):
        ray.shutdown()


def _serial_map(fn: Callable[[T], R], items: Sequence[T], bar: Bar[None]) -> list[R]:
    results: list[R] = []
    for item in items:
        results.append(fn(item))
        bar.update()
    return results


def _ray_stream(fn: Callable[[T], R], items: Iterator[T], config: RayConfig, bar: Bar[None]) -> Iterator[R]:
    import ray

    remote: Any = ray.remote(num_cpus=1)
    if inspect.isfunction(fn):
        submit: Callable[[T], Any] = remote(fn).remote
    else:  # a functools.partial or other callable: Ray decorates functions only
        submit = functools.partial(remote(_apply).remote, fn)
    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    limit = config.max_in_flight or max(2, 2 * int(resources.get("CPU", 1)))
    pending: dict[Any, int] = {}  # submitted, not finished: ref -> input position
    finished: dict[int, Any] = {}  # finished out of order, waiting for the ones before them
    submitted = returned = 0
    exhausted = False
    while True:
        # Bounded submission: a month of WARC files must not all sit in the object store at once.
        while not exhausted and len(pending) + len(finished) < limit:
            item = next(items, _END)
            if item is _END:
                exhausted = True
                break
            pending[submit(item)] = submitted
            submitted += 1
        while returned in finished:
            yield finished.pop(returned)
            returned += 1
        if pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            for ref in done:
                finished[pending.pop(ref)] = ray.get(ref)
                bar.update()
        elif exhausted:
            return  # everything submitted has been yielded (nothing pending, nothing held back)


_END: Any = object()


def _apply(fn: Callable[[T], R], item: T) -> R:
    return fn(item)


def shard_indices(keys: np.ndarray, shards: int) -> list[np.ndarray]:
    """Row indices of ``keys`` (unsigned ints, e.g. band hashes) per shard ``key % shards``, ascending.

    Equal keys land in the same shard, so work grouped by key (candidate pairs of a band bucket) can
    run per shard on different workers; ``parallel_map`` over the shards returns results in shard order.
    """
    if shards < 1:
        raise ValueError(f"shards must be >= 1, got {shards}")
    assignment = np.asarray(keys).astype(np.uint64, copy=False) % np.uint64(shards)
    order = np.argsort(assignment, kind="stable")
    bounds = np.searchsorted(assignment[order], np.arange(shards + 1, dtype=np.uint64))
    return [order[bounds[shard] : bounds[shard + 1]] for shard in range(shards)]
