"""LLM client throughput and cache cost against the loopback server (``python -m bench.llm``).

1. Throughput: N requests at 100 ms simulated latency with 64 in flight (and 16). The ceiling is
   concurrency / latency = 640 requests/s; we report the achieved fraction (target >= 0.95 at 64 on
   2 cores), next to the obvious alternative measured in the same run: a bare ``AsyncOpenAI`` +
   semaphore loop (no cache, no retries, no accounting). On a shared machine wall rates move with the
   load, so the figure to compare is the client's CPU per call (process CPU time / calls; target
   <= 0.5 ms), which the server, in its own process, does not add to. The requests are built before
   the clock starts; the event loop (uvloop's when installed) is reported.
2. Cache: per-call cost of a lookup (single-key ``get`` and batched ``get_many``) in a cache of
   10,000 answers, the cost of committing one answer, and a fully cached rerun end to end.
Results are printed and written to ``bench/results/llm.json``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import openai

from almanac.core.io import write_json
from almanac.llm.cache import CachedResponse, LLMCache
from almanac.llm.client import run_requests
from almanac.llm.config import RoleConfig
from almanac.llm.request import LLMRequest

LATENCY_S = 0.1
CONCURRENCY = 64
REQUESTS = 1920  # 30 waves of 64
CACHE_ENTRIES = 10_000
RESULTS = Path("bench/results/llm.json")


def requests(prefix: str, n: int) -> list[LLMRequest]:
    return [
        LLMRequest(f"{prefix}{i}", "bench", (("user", f"{prefix} question {i}"),), "1", "h") for i in range(n)
    ]


async def bare_client(url: str, n: int, concurrency: int) -> float:
    # The layer's deadline (timeout_s 120) for every part of the call: the SDK's default 5 s connect
    # timeout fails this loop on a loaded machine, where 64 connections open at once.
    client = openai.AsyncOpenAI(api_key="none", base_url=url, max_retries=0, timeout=120.0)
    gate = asyncio.Semaphore(concurrency)

    async def one(i: int) -> None:
        async with gate:
            await client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": f"bare {i}"}]
            )

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(n)))
    elapsed = time.perf_counter() - started
    await client.close()
    return elapsed


@contextmanager
def server_process(latency_s: float) -> Iterator[str]:
    """The loopback server in its own process, so that its threads do not compete for our GIL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.support.llm_server", "--latency", str(latency_s)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield process.stdout.readline().strip()
    finally:
        process.terminate()
        process.wait(timeout=10)


def throughput(workdir: Path, concurrency: int, n: int) -> dict[str, Any]:
    with server_process(LATENCY_S) as url:
        role = RoleConfig(backend="openai", model="m", base_url=url, max_concurrency=concurrency, name="b")
        asyncio.run(bare_client(url, concurrency, concurrency))  # warm imports and the server's threads
        bare_cpu = time.process_time()
        bare_s = asyncio.run(bare_client(url, n, concurrency))
        bare_cpu_s = time.process_time() - bare_cpu
        with LLMCache(workdir / f"throughput{concurrency}.sqlite") as cache:
            run_requests(role, requests("warm", concurrency), cache)
            live = requests("live", n)  # the stage's input, built before the clock starts
            started, cpu = time.perf_counter(), time.process_time()
            results = run_requests(role, live, cache)
            layer_s, cpu_s = time.perf_counter() - started, time.process_time() - cpu
            assert all(result.ok for result in results)
            started = time.perf_counter()
            rerun = run_requests(role, live, cache)
            rerun_s = time.perf_counter() - started
            assert all(result.cached for result in rerun)
    ideal = concurrency / LATENCY_S
    return {
        "requests": n,
        "latency_s": LATENCY_S,
        "concurrency": concurrency,
        "ideal_rps": ideal,
        "layer_rps": round(n / layer_s, 1),
        "layer_fraction_of_ideal": round(n / layer_s / ideal, 3),
        "bare_client_rps": round(n / bare_s, 1),
        "bare_fraction_of_ideal": round(n / bare_s / ideal, 3),
        "layer_vs_bare": round(bare_s / layer_s, 3),
        "client_cpu_ms_per_call": round(cpu_s / n * 1e3, 3),
        "bare_client_cpu_ms_per_call": round(bare_cpu_s / n * 1e3, 3),
        "cached_rerun_s": round(rerun_s, 4),
        "cached_rerun_us_per_request": round(rerun_s / n * 1e6, 1),
        "event_loop": event_loop(),
    }


def event_loop() -> str:
    """The event loop run_requests runs on: uvloop's when it is installed, asyncio's otherwise."""
    return "uvloop" if importlib.util.find_spec("uvloop") is not None else "asyncio"


def cache_costs(workdir: Path) -> dict[str, Any]:
    response = CachedResponse("<verdict>valid</verdict>" * 20, 900, 40)
    keys = [f"{i:064x}" for i in range(CACHE_ENTRIES)]
    with LLMCache(workdir / "lookup.sqlite") as cache:
        started = time.perf_counter()
        for key in keys[:1000]:
            cache.put(key, "openai|x|m", "bench", "1", response)  # one commit per answer, as in live runs
        put_us = (time.perf_counter() - started) / 1000 * 1e6
        cache.put_many([(key, "openai|x|m", "bench", "1", response) for key in keys[1000:]])
        samples = []
        for _ in range(5):
            started = time.perf_counter()
            for key in keys[::10]:
                cache.get(key)
            samples.append((time.perf_counter() - started) / len(keys[::10]) * 1e6)
        started = time.perf_counter()
        found = cache.get_many(keys)
        batch_us = (time.perf_counter() - started) / len(keys) * 1e6
        assert len(found) == CACHE_ENTRIES
    return {
        "entries": CACHE_ENTRIES,
        "get_us_per_call": round(statistics.median(samples), 2),
        "get_many_us_per_key": round(batch_us, 2),
        "put_commit_us_per_call": round(put_us, 1),
        "lookup_vs_call_latency": f"1 : {round(LATENCY_S * 1e6 / statistics.median(samples)):,}",
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        report = {
            "throughput": throughput(Path(tmp), CONCURRENCY, REQUESTS),
            "throughput_quarter_load": throughput(Path(tmp), CONCURRENCY // 4, REQUESTS // 4),
            "cache": cache_costs(Path(tmp)),
        }
    write_json(report, RESULTS)
    for name in ("throughput", "throughput_quarter_load"):
        t = report[name]
        print(
            f"{t['concurrency']} in flight at {t['latency_s'] * 1000:.0f} ms: {t['layer_rps']} req/s = "
            f"{t['layer_fraction_of_ideal']:.1%} of {t['ideal_rps']:.0f} (bare AsyncOpenAI loop: "
            f"{t['bare_client_rps']} req/s = {t['bare_fraction_of_ideal']:.1%}; "
            f"layer/bare = {t['layer_vs_bare']};"
            f" client CPU {t['client_cpu_ms_per_call']} ms/call, bare {t['bare_client_cpu_ms_per_call']};"
            f" {t['event_loop']} loop)"
        )
    t, c = report["throughput"], report["cache"]
    print(
        f"cached rerun of {t['requests']}: {t['cached_rerun_s']} s "
        f"({t['cached_rerun_us_per_request']} us/request)"
    )
    print(
        f"cache of {c['entries']}: get {c['get_us_per_call']} us/call, "
        f"get_many {c['get_many_us_per_key']} us/key, "
        f"put+commit {c['put_commit_us_per_call']} us/call"
    )
    print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
