"""Ray runtime: local by default, an existing cluster when ``ray.address`` is set, serial for tests.

The same stage code runs on every path: stages call :func:`parallel_map` with a module-level
function and a list of work items and get results back in input order (which keeps outputs
byte-identical however many workers ran).
"""

from __future__ import annotations

import ipaddress
import logging
import os
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from almanac.core.progress import Bar, progress

T = TypeVar("T")
R = TypeVar("R")

EXECUTORS = ("ray", "serial")
_log = logging.getLogger("almanac.ray")
LOOPBACK = "127.0.0.1"


@dataclass(frozen=True)
class RayConfig:
    address: str = ""  # "" = start Ray locally; "auto" or "ray://host:10001" = join a cluster
    num_cpus: int = 0  # local only; 0 = every core of this machine
    object_store_mb: int = 512  # small machines: the default (30% of RAM) starves the workers
    executor: str = "ray"  # "ray" or "serial" (no Ray at all: tests, debugging)
    max_in_flight: int = 0  # tasks submitted at once; 0 = twice the cluster's CPUs

    def __post_init__(self) -> None:
        if self.executor not in EXECUTORS:
            raise ValueError(f"ray.executor must be one of {EXECUTORS}, got {self.executor!r}")


def init_ray(config: RayConfig) -> None:
    """Start or join Ray once per process; later calls are no-ops."""
    import ray

    if ray.is_initialized():
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if config.address:
        context: Any = ray.init(address=config.address, logging_level=logging.WARNING, log_to_driver=True)
        _log.info("joined Ray cluster at %s (%s)", context.address_info.get("gcs_address"), _cpus())
        return
    _private_local_ray()
    # address="local": never join a cluster found through RAY_ADDRESS or /tmp/ray (only ray.address does).
    context = ray.init(
        address="local",
        num_cpus=config.num_cpus or os.cpu_count() or 1,
        object_store_memory=config.object_store_mb * 2**20,
        include_dashboard=False,
        dashboard_host=LOOPBACK,
        logging_level=logging.WARNING,
        _node_ip_address=LOOPBACK,
    )
    node_ip = str(context.address_info.get("node_ip_address", ""))
    if not ipaddress.ip_address(node_ip).is_loopback:
        ray.shutdown()
        raise RuntimeError(f"local Ray took node address {node_ip}, not loopback: refusing to run on it")
    _log.info("started local Ray on %s (%s)", node_ip, _cpus())


def _private_local_ray() -> None:
    """Loopback-only listeners and Ray's token auth for the instance this process starts.

    Ray swaps a loopback ``_node_ip_address`` for the machine's routable IP, and its GCS, raylet,
    object manager and workers then listen on every interface; with Ray's "no multi-node cluster"
    switch off it keeps the loopback IP and binds each listener there. The token comes from the
    environment (``RAY_AUTH_TOKEN``) or is made here, for this process and its Ray children only, so
    nothing is written to ``~/.ray``.
    """
    from ray._private import ray_constants
    from ray._raylet import AuthenticationTokenLoader, Config  # type: ignore[attr-defined]

    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # what ray_constants reads at import
    ray_constants.ENABLE_RAY_CLUSTER = False  # the same switch, for a Ray imported before this call
    os.environ["RAY_AUTH_MODE"] = "token"
    if not os.environ.get("RAY_AUTH_TOKEN"):
        os.environ["RAY_AUTH_TOKEN"] = secrets.token_hex(32)
    # Ray caches its config and token at import; re-read both so this process uses the token too.
    Config.initialize("")
    AuthenticationTokenLoader.instance().reset_cache()


def _cpus() -> str:
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    return f"{int(resources.get('CPU', 0))} CPUs"


def parallel_map(
    fn: Callable[[T], R], items: Sequence[T], config: RayConfig, desc: str = "", unit: str = "task"
) -> list[R]:
    """``[fn(item) for item in items]``, spread over Ray workers unless the executor is serial.

    A single item also runs in-process: there is nothing to parallelise, and starting Ray would
    cost seconds (the results are the same either way). A progress bar (``desc``, default the function's
    name) counts finished items in this process; Ray workers draw none (their stderr is no TTY).
    """
    bar: Bar[None] = progress(desc=desc or fn.__name__.lstrip("_"), unit=unit, total=len(items))
    try:
        return _map(fn, items, config, bar)
    finally:
        bar.close()


def _map(fn: Callable[[T], R], items: Sequence[T], config: RayConfig, bar: Bar[None]) -> list[R]:
    if config.executor == "serial" or len(items) <= 1:
        local: list[R] = []
        for item in items:
            local.append(fn(item))
            bar.update()
        return local
    import ray

    init_ray(config)
    remote_fn: Any = ray.remote(num_cpus=1)(fn)
    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    limit = config.max_in_flight or max(2, 2 * int(resources.get("CPU", 1)))
    results: list[Any] = [None] * len(items)
    pending: dict[Any, int] = {}
    next_index = 0
    while next_index < len(items) or pending:
        # Bounded submission: a month of WARC files must not all sit in the object store at once.
        while next_index < len(items) and len(pending) < limit:
            pending[remote_fn.remote(items[next_index])] = next_index
            next_index += 1
        done, _ = ray.wait(list(pending), num_returns=1)
        for ref in done:
            results[pending.pop(ref)] = ray.get(ref)
            bar.update()
    return results
