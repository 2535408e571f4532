"""Start-up time of the ``almanac`` command, as a user feels it: a whole new process each run.

    .venv/bin/python -m bench.cli_startup [--runs 10] [--out bench/results/cli_startup.json]

Timed with time.perf_counter around subprocess.run, ``--runs`` runs of each command after one warm-up run
(the warm-up fills the OS file cache, so every counted run sees the same disk state); min and median
in seconds:

* ``python_pass``: ``python -c pass``, the floor: the interpreter alone, nothing of Almanac.
* ``almanac_help``: ``almanac --help``, the console script building the parser and printing help. The
  subcommands import their machinery only when they run, so this should sit near the floor.
* ``eager_import``: ``python -c "import almanac.reports.publish"``, what ``almanac --help`` cost when
  almanac/cli.py imported the publish machinery (pyarrow, DuckDB, matplotlib, openai) at module level.

The commands run in turn (pass, help, eager, pass, help, ...) so that a machine getting slower or faster
during the run moves all three alike.
"""

from __future__ import annotations

import argparse
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from almanac.core.io import write_json


def commands() -> dict[str, list[str]]:
    """Each measured command as argv, run with the interpreter that runs this benchmark."""
    # The console script sits next to the interpreter in a venv; fall back to PATH.
    script = Path(sys.executable).with_name("almanac")
    almanac = str(script) if script.exists() else shutil.which("almanac")
    if almanac is None:
        raise SystemExit("no `almanac` command: install the project (make setup) first")
    return {
        "python_pass": [sys.executable, "-c", "pass"],
        "almanac_help": [almanac, "--help"],
        "eager_import": [sys.executable, "-c", "import almanac.reports.publish"],
    }


def run_once(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def measure(argvs: dict[str, list[str]], runs: int) -> dict[str, list[float]]:
    for argv in argvs.values():
        run_once(argv)  # warm-up, not counted
    seconds: dict[str, list[float]] = {name: [] for name in argvs}
    for _ in range(runs):
        for name, argv in argvs.items():
            seconds[name].append(run_once(argv))
    return seconds


def summarise(seconds: dict[str, list[float]]) -> dict[str, Any]:
    summary: dict[str, Any] = {
        name: {"min_s": round(min(times), 4), "median_s": round(statistics.median(times), 4)}
        for name, times in seconds.items()
    }
    help_median = summary["almanac_help"]["median_s"]
    summary["ratios"] = {
        # How much slower than a bare interpreter, and how much faster than the old eager import.
        "help_over_pass": round(help_median / summary["python_pass"]["median_s"], 2),
        "eager_over_help": round(summary["eager_import"]["median_s"] / help_median, 1),
    }
    return summary


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=10, help="counted runs of each command (default 10)")
    parser.add_argument("--out", type=Path, default=Path("bench/results/cli_startup.json"))
    args = parser.parse_args(argv)
    argvs = commands()
    report: dict[str, Any] = {
        "machine": f"{platform.machine()}, {platform.python_implementation()} {platform.python_version()}",
        "runs": args.runs,
        "commands": {name: shlex.join([Path(argv[0]).name, *argv[1:]]) for name, argv in argvs.items()},
        **summarise(measure(argvs, args.runs)),
    }
    for name in argvs:
        row = report[name]
        print(
            f"{name:14} min {row['min_s']:.3f} s  median {row['median_s']:.3f} s   {report['commands'][name]}"
        )
    print(
        f"almanac --help / python -c pass: {report['ratios']['help_over_pass']}x; "
        f"eager import / almanac --help: {report['ratios']['eager_over_help']}x"
    )
    write_json(report, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
