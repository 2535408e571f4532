"""How long a no-op ``dvc repro`` of the whole DAG takes (``python -m bench.noop_repro [--project DIR]``).

Run it in a built project (after ``make repro``; default: this repository). Every run must be a no-op:
the benchmark stops if DVC would run a stage. It times, as whole processes, with the obvious alternative
in the same run:

- ``dvc repro`` as installed: ruamel.yaml with its libyaml parser (``ruamel.yaml.clib``);
- ``dvc repro`` with ruamel.yaml's pure-Python parser (what DVC used before the clib dependency): the
  same command with ``ruamel.yaml.main.CParser`` set to None;
- ``dvc status``, the read-only question ``almanac status --check`` asks;
- ``make repro``'s command, ``python -m almanac.core.repro``: the no-op stamp's fast path (no DVC import) when
  nothing DVC reads changed since DVC last found the tree up to date (issue 26 goal: <= 2 s of CPU and <= 5
  lines on a no-op);
- the same with the fast path off (``ALMANAC_REPRO_NO_FAST_PATH=1``): ``dvc repro --quiet`` with the
  launcher's patches, which is what a no-op costs when the stamp is missing or stale (it writes the stamp).

Each command gets one warm-up run that is not counted. The first no-op after a build is not timed here: a
build that ran stages now writes the stamp itself (``almanac.core.noop_recheck``; its extra CPU and the
first no-op's are in docs/build_speed.md), so that no-op is the fast path's row.

A no-op's CPU, profiled on the sample's 76 stage instances after issue 26's second pass
(docs/build_speed.md): importing DVC ~20%, loading dvc.yaml and dvc.lock and building the stages ~35%, the
status of the outputs and deps from DVC's state database ~25%, the one rwlock a stage and the graph the rest
(make repro's launcher; plain ``dvc repro`` also pays the nested rwlocks and the params lookups). Wall time,
CPU (user + sys), lines printed and peak RSS per command (min and median of ``--runs``) are printed and
written to ``bench/results/noop_repro.json``. The cost grows with the number of stages, not with the
data, so there is no 10x-data variant: a 10x-month DAG would be the place to look.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from almanac.core.io import write_json

RESULTS = Path("bench/results/noop_repro.json")
PURE_PYTHON_YAML = (
    "import sys, ruamel.yaml.main as m; m.CParser = None\n"
    "from dvc.cli import main\n"
    "sys.exit(main(sys.argv[1:]))"
)


FAST_PATH_OFF = "ALMANAC_REPRO_NO_FAST_PATH"


def commands() -> dict[str, tuple[list[str], dict[str, str]]]:
    """Each command with the variables it runs with."""
    dvc = str(Path(sys.executable).with_name("dvc"))
    return {
        "dvc repro (libyaml)": ([dvc, "repro"], {}),
        "dvc repro (pure-Python YAML)": ([sys.executable, "-c", PURE_PYTHON_YAML, "repro"], {}),
        "dvc status": ([dvc, "status"], {}),
        "make repro, DVC's path": ([sys.executable, "-m", "almanac.core.repro"], {FAST_PATH_OFF: "1"}),
        "make repro (almanac.core.repro)": ([sys.executable, "-m", "almanac.core.repro"], {}),
    }


def timed(
    command: list[str], project: Path, variables: dict[str, str] | None = None
) -> tuple[float, float, int, str]:
    """(wall s, user+sys CPU s, peak RSS KiB, stdout) of one run of ``command`` as its own process."""
    env = {key: value for key, value in os.environ.items() if key != FAST_PATH_OFF}
    env.update({"DVC_NO_ANALYTICS": "1", **(variables or {})})
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=project, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert process.stdout is not None
    output = process.stdout.read().decode()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(command)} failed:\n{output}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, output


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--project", type=Path, default=Path("."), help="a built project (default: .)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    reason = not_built(args.project)
    if reason:  # `make bench` in a fresh clone: a "no-op" repro would be the whole build
        print(f"bench.noop_repro: skipped: {reason}")
        return 0
    results: dict[str, Any] = {"runs": args.runs, "stages": _stage_count(args.project), "commands": {}}
    for name, (command, variables) in commands().items():
        walls, cpus, peaks = [], [], []
        timed(command, args.project, variables)  # warm-up
        for _ in range(args.runs):
            wall, cpu, peak, output = timed(command, args.project, variables)
            if "Running stage" in output or output.startswith("ran ") or "\nran " in output:
                raise SystemExit(f"{name}: not a no-op (a stage ran); run `make repro` first")
            walls.append(wall)
            cpus.append(cpu)
            peaks.append(peak)
        results["commands"][name] = {
            "wall_s": {"min": round(min(walls), 3), "median": round(statistics.median(walls), 3)},
            "cpu_s": {"min": round(min(cpus), 3), "median": round(statistics.median(cpus), 3)},
            "peak_rss_mib": round(max(peaks) / 1024, 1),
            "lines": len(output.splitlines()),
        }
        print(
            f"{name:32s} wall min {min(walls):6.2f} s  median {statistics.median(walls):6.2f} s"
            f"  cpu median {statistics.median(cpus):6.2f} s  peak {max(peaks) / 1024:6.1f} MiB"
            f"  {len(output.splitlines())} lines"
        )
    fast = results["commands"]["dvc repro (libyaml)"]["wall_s"]["median"]
    slow = results["commands"]["dvc repro (pure-Python YAML)"]["wall_s"]["median"]
    results["speedup_libyaml"] = round(slow / fast, 2)
    print(f"libyaml speed-up of a no-op repro: {slow / fast:.2f}x ({results['stages']} stages)")
    write_json(results, RESULTS)
    return 0


def not_built(project: Path) -> str:
    """Why a no-op repro cannot be timed here ("" when it can): no dvc.lock, or `dvc status` finds
    stages to run (a clone before `make repro`, or a param changed since)."""
    if not (project / "dvc.lock").is_file():
        return f"{project.resolve()} has no dvc.lock; run `make repro` first"
    dvc = Path(sys.executable).parent / "dvc"
    status = subprocess.run([str(dvc), "status", "--quiet"], cwd=project, capture_output=True)
    if status.returncode != 0:
        return "the sample is not built or not up to date (`dvc status`); run `make repro` first"
    return ""


def _stage_count(project: Path) -> int:
    if not (project / "dvc.lock").is_file():
        raise SystemExit(f"{project}: no dvc.lock; run `make repro` first")
    return len(yaml.safe_load((project / "dvc.lock").read_text(encoding="utf-8"))["stages"])


if __name__ == "__main__":
    sys.exit(main())
