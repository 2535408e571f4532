"""Where a test run's time goes: one JSON line per test with its wall time and CPU (its own and its children's).

`--durations` gives wall time only, which on 2 busy cores mixes a test's work with its wait for a core. With
ALMANAC_TEST_TIMES=<file> set, each process that runs tests (each xdist worker) appends per test: the node id,
the worker, start and end (seconds since the epoch, so the workers' lines share one clock), wall seconds,
the process's own CPU seconds and its waited-for children's (subprocesses: `dvc`, stages, `almanac`).
`python -m tests.support.timings FILE` prints the totals per file and per worker, the idle time of each
worker and the tests with the most CPU: what to shorten first. Off (no file) unless the variable is set.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from pathlib import Path

VARIABLE = "ALMANAC_TEST_TIMES"


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime


class Timings:
    """Started at a test's first log line, written at its last (setup, call and teardown included)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        self.nodeid: str | None = None
        self.started = (0.0, 0.0, 0.0)

    def begin(self, nodeid: str) -> None:
        self.nodeid = nodeid
        self.started = (time.time(), *_cpu())

    def end(self) -> None:
        if self.nodeid is None:
            return
        wall0, own0, children0 = self.started
        own, children = _cpu()
        now = time.time()
        record = {
            "test": self.nodeid,
            "worker": self.worker,
            "start": round(wall0, 2),
            "end": round(now, 2),
            "wall": round(now - wall0, 2),
            "cpu": round(own - own0, 2),
            "children_cpu": round(children - children0, 2),
        }
        with self.path.open("a") as out:  # one short line per write: appends from two workers do not mix
            out.write(json.dumps(record) + "\n")
        self.nodeid = None


def from_environment() -> Timings | None:
    path = os.environ.get(VARIABLE)
    return Timings(Path(path)) if path else None


def summary(lines: list[dict[str, object]], top: int = 30) -> str:
    if any(line["worker"] != "main" for line in lines):  # an xdist controller's copies of its workers' tests
        lines = [line for line in lines if line["worker"] != "main"]
    by_file: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    by_worker: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, float("inf"), 0.0])
    for line in lines:
        test, worker = str(line["test"]), str(line["worker"])
        cpu = float(line["cpu"]) + float(line["children_cpu"])  # type: ignore[arg-type]
        wall = float(line["wall"])  # type: ignore[arg-type]
        totals = by_file[test.split("::")[0]]
        totals[0] += wall
        totals[1] += cpu
        totals[2] += 1
        busy = by_worker[worker]
        busy[0] += wall
        busy[1] += cpu
        busy[2] = min(busy[2], float(line["start"]))  # type: ignore[arg-type]
        busy[3] = max(busy[3], float(line["end"]))  # type: ignore[arg-type]
    first = min(float(line["start"]) for line in lines)  # type: ignore[arg-type]
    out = ["worker  first-test  last-end  in-tests  cpu"]
    for worker, (wall, cpu, start, end) in sorted(by_worker.items()):
        out.append(f"{worker:6} {start - first:10.0f} {end - first:9.0f} {wall:9.0f} {cpu:5.0f}")
    out.append("\nfiles by CPU (s): wall cpu tests")
    for name, (wall, cpu, count) in sorted(by_file.items(), key=lambda item: -item[1][1])[:top]:
        out.append(f"{wall:7.1f} {cpu:7.1f} {count:5.0f}  {name}")
    out.append("\ntests by CPU (s): wall cpu (own + children) worker start")
    ranked = sorted(lines, key=lambda line: -(float(line["cpu"]) + float(line["children_cpu"])))  # type: ignore[arg-type]
    for line in ranked[:top]:
        cpu = float(line["cpu"]) + float(line["children_cpu"])  # type: ignore[arg-type]
        start = float(line["start"]) - first  # type: ignore[arg-type]
        out.append(f"{float(line['wall']):7.1f} {cpu:7.1f} {line['worker']} {start:5.0f}  {line['test']}")  # type: ignore[arg-type]
    return "\n".join(out)


if __name__ == "__main__":
    records = [json.loads(text) for text in Path(sys.argv[1]).read_text().splitlines() if text.strip()]
    print(summary(records))
