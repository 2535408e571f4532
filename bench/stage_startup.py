"""Where a build's time goes: stage start-up, and ``make repro`` wall against the stages' own work.

    python -m bench.stage_startup [--project DIR] [--runs 3] [--stages a,b] [--repro]

* **Start-up per stage**: CPU seconds (user + sys, the OS's accounting of the whole process, so a loaded
  machine inflates it less than wall time) of ``python -c "import stages.<name>"`` in a new process: what
  a stage pays before its ``main`` starts. Median of ``--runs`` after one warm-up run, next to the
  interpreter alone (``python -c pass``). Goal: under 1 s each (issue 26).
* **Build overhead** (``--repro``, minutes: it rebuilds every stage of ``--project`` with ``-f``): wall
  time of ``python -m almanac.core.repro -f`` against the sum of the seconds the stages report as their
  own work (``metrics/timings/*.json``, written by every stage's last line). Ratio goal: <= 2 on a
  quiet machine. The rest is process start-up (interpreter, imports) and DVC's bookkeeping. Also the
  build's CPU seconds (user + sys of every process it ran) against the same work, and the load average
  before and after: on a shared machine the wall ratio measures the neighbours too.

The no-op ``dvc repro`` is bench/noop_repro.py. Results go to ``bench/results/stage_startup.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from almanac.core.io import write_json

RESULTS = Path("bench/results/stage_startup.json")
BUDGET_S = 1.0


def stage_names(project: Path) -> list[str]:
    return sorted(path.stem for path in (project / "stages").glob("*.py") if path.stem != "__init__")


def process_cpu(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(user + sys CPU s, wall s) of one run of ``argv`` as its own process."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert process.stderr is not None
    error = process.stderr.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{error}")
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started


def startup(project: Path, stages: list[str], runs: int) -> dict[str, Any]:
    commands = {"python -c pass": [sys.executable, "-c", "pass"]}
    commands.update({stage: [sys.executable, "-c", f"import stages.{stage}"] for stage in stages})
    for argv in commands.values():
        process_cpu(argv, project)  # warm-up: OS file cache, bytecode
    cpu: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(runs):  # in turn, so a machine that drifts moves every stage alike
        for name, argv in commands.items():
            cpu[name].append(process_cpu(argv, project)[0])
    medians = {name: round(statistics.median(values), 3) for name, values in cpu.items()}
    over = sorted(name for name, value in medians.items() if value >= BUDGET_S)
    return {"cpu_s_median": medians, "over_budget": over, "max_s": max(medians.values())}


def repro_overhead(project: Path) -> dict[str, Any]:
    timings = project / "metrics" / "timings"
    load_before = os.getloadavg()[0]
    started_at = time.time()
    argv = [sys.executable, "-m", "almanac.core.repro", "-f"]
    started = time.perf_counter()
    process = subprocess.Popen(argv, cwd=project)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit("make repro failed")
    fresh = [path for path in timings.glob("*.json") if path.stat().st_mtime >= started_at]
    work = sum(float(json.loads(path.read_text(encoding="utf-8"))["seconds"]) for path in fresh)
    cpu = usage.ru_utime + usage.ru_stime
    return {
        "stages_ran": len(fresh),
        "wall_s": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "stage_work_s": round(work, 1),
        "wall_over_work": round(wall / work, 2) if work else None,
        "cpu_over_work": round(cpu / work, 2) if work else None,
        "load_average_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--project", type=Path, default=Path("."), help="project root (default: .)")
    parser.add_argument("--runs", type=int, default=3, help="counted runs per stage (default 3)")
    parser.add_argument("--stages", help="comma-separated stage modules (default: all of stages/)")
    parser.add_argument("--repro", action="store_true", help="also time a forced full build (minutes)")
    args = parser.parse_args()
    project = args.project.resolve()
    stages = args.stages.split(",") if args.stages else stage_names(project)
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}",
        "load_average_1min": round(os.getloadavg()[0], 1),
        "runs": args.runs,
        "startup": startup(project, stages, args.runs),
    }
    for name, seconds in report["startup"]["cpu_s_median"].items():
        mark = "  OVER 1 s" if seconds >= BUDGET_S else ""
        print(f"{name:32s} {seconds:6.3f} s CPU{mark}")
    over = report["startup"]["over_budget"]
    print(f"start-up: max {report['startup']['max_s']:.3f} s CPU; over 1 s: {', '.join(over) or 'none'}")
    if args.repro:
        report["repro"] = repro_overhead(project)
        repro = report["repro"]
        print(
            f"make repro -f: {repro['stages_ran']} stages and steps, wall {repro['wall_s']} s, CPU "
            f"{repro['cpu_s']} s, stage work {repro['stage_work_s']} s, wall / work "
            f"{repro['wall_over_work']}, CPU / work {repro['cpu_over_work']} "
            f"(load {repro['load_average_1min']})"
        )
    write_json(report, RESULTS)
    print(f"wrote {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
