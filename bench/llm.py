"""LLM client throughput and cache cost against a loopback server (``python -m bench.llm``).

1. Throughput: the layer (``run_requests``: cache, retries, accounting) sends N requests with 64 (and
   16) in flight to ``bench.llm_server`` (its own process, one asyncio loop, each reply written 100 ms
   after its request was read). **The ideal is what a zero-overhead client gets from that same
   server**: one that keeps every slot busy from the first instant to the last and loses no time
   between a reply and its next request would take ``sum(latency the server delivered, per call) /
   in-flight`` seconds, the latencies read from the server's own log (request complete -> reply
   written). ``fraction_of_ideal`` = that / the measured wall time. The ramp-up (keys, cache lookups,
   connections before the first request) and the tail (the last calls ending at different times) are
   the client's to pay; a run is WAVES latencies long so the tail, at most one latency, stays small.
   Beside it: the nominal fraction (against in-flight / 100 ms), the bare ``AsyncOpenAI`` +
   semaphore loop (no cache, no retries, no accounting; a quarter of the calls) against the same
   server, the client's CPU per call (process CPU / calls; target <= 0.5 ms) and how long the client
   and the server waited for a CPU during the run (``/proc/<pid>/schedstat``: on a shared machine
   that, not the client, is most of what is lost).
2. Cache: per-call cost of a lookup (single-key ``get`` and batched ``get_many``) in a cache of
   10,000 answers, the cost of committing one answer, and a fully cached rerun end to end.
Results are printed and written to ``bench/results/llm.json``; docs/llm-client-cpu.md has the figures.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
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
WAVES = 60  # each slot makes 60 calls: a 6 s run, so the tail (<= one latency) is under 1% of it
BARE_SHARE = 4  # the bare SDK loop makes a quarter of the calls (15 waves)
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


@dataclass
class Server:
    url: str
    pid: int

    def spans(self) -> list[tuple[float, float]]:
        """(request complete, reply written) of each chat request since the last call (and forgets them)."""
        with urllib.request.urlopen(f"{self.url}/stats", timeout=30) as reply:
            return [(float(a), float(b)) for a, b in json.loads(reply.read())]


@contextmanager
def server_process(latency_s: float) -> Iterator[Server]:
    """bench.llm_server in its own process, so that it does not compete for the client's GIL."""
    process = subprocess.Popen(
        [sys.executable, "-m", "bench.llm_server", "--latency", str(latency_s)],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        yield Server(process.stdout.readline().strip(), process.pid)
    finally:
        process.terminate()
        process.wait(timeout=10)


def waited_for_cpu_s(pid: int | str = "self") -> float:
    """Seconds the process's main thread has spent runnable but not running (Linux schedstat; 0 elsewhere)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def ideal_wall_s(spans: list[tuple[float, float]], concurrency: int) -> float:
    """A zero-overhead client's wall time for these calls: every slot busy with the server's own latency."""
    return sum(replied - complete for complete, replied in spans) / concurrency


def throughput(workdir: Path, concurrency: int, n: int) -> dict[str, Any]:
    with server_process(LATENCY_S) as server:
        role = RoleConfig(
            backend="openai", model="m", base_url=server.url, max_concurrency=concurrency, name="b"
        )
        asyncio.run(bare_client(server.url, concurrency, concurrency))  # warm imports and the server
        server.spans()
        bare_cpu = time.process_time()
        bare_n = n // BARE_SHARE  # at ~20x the layer's CPU per call, the whole run took minutes under load
        bare_s = asyncio.run(bare_client(server.url, bare_n, concurrency))
        bare_cpu_s = time.process_time() - bare_cpu
        bare_spans = server.spans()
        with LLMCache(workdir / f"throughput{concurrency}.sqlite") as cache:
            run_requests(role, requests("warm", concurrency), cache)
            live = requests("live", n)  # the stage's input, built before the clock starts
            server.spans()
            waited, server_waited = waited_for_cpu_s(), waited_for_cpu_s(server.pid)
            started, cpu = time.perf_counter(), time.process_time()
            results = run_requests(role, live, cache)
            layer_s, cpu_s = time.perf_counter() - started, time.process_time() - cpu
            waited, server_waited = waited_for_cpu_s() - waited, waited_for_cpu_s(server.pid) - server_waited
            spans = server.spans()
            assert all(result.ok for result in results) and len(spans) == n
            started = time.perf_counter()
            rerun = run_requests(role, live, cache)
            rerun_s = time.perf_counter() - started
            assert all(result.cached for result in rerun)
    ideal_s, bare_ideal_s = ideal_wall_s(spans, concurrency), ideal_wall_s(bare_spans, concurrency)
    nominal = concurrency / LATENCY_S
    return {
        "requests": n,
        "latency_s": LATENCY_S,
        "concurrency": concurrency,
        "server_latency_ms_mean": round(statistics.mean(b - a for a, b in spans) * 1e3, 2),
        "ideal_wall_s": round(ideal_s, 3),
        "layer_wall_s": round(layer_s, 3),
        "layer_rps": round(n / layer_s, 1),
        "fraction_of_ideal": round(ideal_s / layer_s, 3),
        "nominal_rps": nominal,
        "fraction_of_nominal": round(n / layer_s / nominal, 3),
        "bare_requests": bare_n,
        "bare_client_rps": round(bare_n / bare_s, 1),
        "bare_fraction_of_ideal": round(bare_ideal_s / bare_s, 3),
        "layer_vs_bare_rps": round(n / layer_s / (bare_n / bare_s), 3),
        "client_cpu_ms_per_call": round(cpu_s / n * 1e3, 3),
        "bare_client_cpu_ms_per_call": round(bare_cpu_s / bare_n * 1e3, 3),
        "client_waited_for_cpu_ms": round(waited * 1e3, 1),
        "server_waited_for_cpu_ms": round(server_waited * 1e3, 1),
        "load_average_1min": round(os.getloadavg()[0], 1),
        "cores": os.cpu_count(),
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
            "throughput": throughput(Path(tmp), CONCURRENCY, CONCURRENCY * WAVES),
            "throughput_quarter_load": throughput(Path(tmp), CONCURRENCY // 4, CONCURRENCY // 4 * WAVES),
            "cache": cache_costs(Path(tmp)),
        }
    write_json(report, RESULTS)
    for name in ("throughput", "throughput_quarter_load"):
        t = report[name]
        print(
            f"{t['concurrency']} in flight, {t['requests']} calls at {t['latency_s'] * 1000:.0f} ms: "
            f"{t['layer_rps']} req/s in {t['layer_wall_s']} s = {t['fraction_of_ideal']:.1%} of ideal "
            f"({t['ideal_wall_s']} s: server latency {t['server_latency_ms_mean']} ms mean; "
            f"{t['fraction_of_nominal']:.1%} of {t['nominal_rps']:.0f}/s nominal); "
            f"bare AsyncOpenAI loop {t['bare_fraction_of_ideal']:.1%} of ideal, "
            f"layer/bare {t['layer_vs_bare_rps']}; "
            f"client CPU {t['client_cpu_ms_per_call']} ms/call (bare {t['bare_client_cpu_ms_per_call']}); "
            f"waited for a CPU: client {t['client_waited_for_cpu_ms']} ms, "
            f"server {t['server_waited_for_cpu_ms']} ms; "
            f"load {t['load_average_1min']} on {t['cores']} cores; {t['event_loop']} loop"
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
