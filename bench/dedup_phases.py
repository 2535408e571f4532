"""Resident memory of the ``dedup`` stage phase by phase: where its peak comes from.

    .venv/bin/python -m bench.dedup_phases <project folder>     # e.g. a bench.dedup_big crawl, signed

Runs the stage in this process, in ``<project folder>`` (its params.yaml, signatures and ingest files),
with each phase below wrapped: on entry the kernel's high-water mark is reset (``/proc/self/clear_refs``
= 5) and on entry and exit the line ``[wall s, cpu s] > or < phase  rss MB  hwm MB`` goes to stderr, so
a phase's ``hwm`` at its exit is that phase's own peak. Linux only. The stage writes its outputs as
usual; a folder that already has a band index would run incrementally, so it is refused (this tool
deletes nothing: remove ``data/dedup/index`` and ``data/articles`` for a full rebuild).
"""

from __future__ import annotations

import functools
import importlib
import os
import resource
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

PHASES = {
    "almanac.dedup.incremental": [
        "read_signed",
        "select_survivors",
        "corpus_parts",
        "write_parts",
        "write_segments",
        "write_metas",
        "_kept_digests",
        "_save",
    ],
    "almanac.dedup.survivors": ["clustered_rows", "_candidates", "verify_pairs", "decide"],
    "almanac.dedup.dedup_stage": ["finish_stage"],
}
_STARTED = time.perf_counter()


def memory_mb() -> dict[str, int]:
    """VmRSS and VmHWM of this process, MB."""
    found = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) // 1024
    return found


def report(label: str) -> None:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    now = memory_mb()
    print(
        f"[{time.perf_counter() - _STARTED:7.1f} s, cpu {usage.ru_utime + usage.ru_stime:7.1f} s] "
        f"{label:<24} rss {now['VmRSS']:6} MB  hwm {now['VmHWM']:6} MB",
        file=sys.stderr,
        flush=True,
    )


def traced(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def run(*args: Any, **kwargs: Any) -> Any:
        Path("/proc/self/clear_refs").write_text("5")
        report(f"> {name}")
        try:
            return function(*args, **kwargs)
        finally:
            report(f"< {name}")

    return run


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1 or args[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    folder = Path(args[0])
    if (folder / "data" / "dedup" / "index").exists():
        print(
            f"{folder}: has data/dedup/index (an incremental run); remove it for a full rebuild",
            file=sys.stderr,
        )
        return 1
    os.chdir(folder)
    for module_name, names in PHASES.items():
        module = importlib.import_module(module_name)
        for name in names:
            setattr(module, name, traced(name, getattr(module, name)))
    sys.argv = ["stages.dedup"]
    from almanac.dedup.dedup_stage import run

    code = run()
    report(f"done ({code})")
    return code


if __name__ == "__main__":
    sys.exit(main())
