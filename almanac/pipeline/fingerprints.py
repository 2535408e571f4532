"""The ``code_hashes`` stage: one fingerprint of code files per stage (``data/code/<stage>.sha256``).

A fingerprint lists ``<sha256>  <path>`` for each of the stage's code files (``render.code_files``: its
import closure and the prompts it may send), in ``sha256sum`` format, so ``sha256sum -c`` checks it and a
diff of two fingerprints names the files that changed. It is written only when its text changes (atomically),
so DVC sees a changed dep exactly in the stages whose code changed. The closures are walked here, from the
code as it is now, with the same walk that rendered dvc.yaml: a closure that grew since the last
``almanac dag`` still changes the fingerprint (and the test that dvc.yaml is the rendering fails).
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from almanac.core.io import atomic_path
from almanac.pipeline.code_stage import CODE_HASHES, fingerprint_path
from almanac.pipeline.declare import Stage
from almanac.pipeline.render import code_files


def fingerprint(stage: Stage, root: Path, digests: dict[str, str] | None = None) -> str:
    """``<sha256>  <path>`` per code file of ``stage``, in rendering order. ``digests``: the files hashed so
    far in this run (a file in many closures is read once)."""
    known = {} if digests is None else digests
    lines = []
    for path in code_files(stage, root):
        if path not in known:
            known[path] = hashlib.sha256((root / path).read_bytes()).hexdigest()
        lines.append(f"{known[path]}  {path}\n")
    return "".join(lines)


def write_fingerprints(stages: Sequence[Stage], root: Path) -> list[str]:
    """Write each stage's fingerprint under ``root`` where its text changed; the stages rewritten."""
    rewritten: list[str] = []
    digests: dict[str, str] = {}
    for stage in stages:
        if stage.name == CODE_HASHES:
            continue
        text = fingerprint(stage, root, digests)
        target = root / fingerprint_path(stage.name)
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            # Atomic: a reader (DVC hashing it) sees the old text or the new, whole.
            with atomic_path(target) as temporary:
                temporary.write_text(text, encoding="utf-8")
            rewritten.append(stage.name)
    return rewritten


def main() -> int:
    from almanac.pipeline.dag import STAGES

    started = time.perf_counter()
    if len(sys.argv) > 1:
        print(f"{CODE_HASHES}: takes no arguments", file=sys.stderr)
        return 2
    rewritten = write_fingerprints(STAGES, Path.cwd())
    seconds = time.perf_counter() - started
    print(
        f"{CODE_HASHES}: {len(STAGES) - 1} fingerprints, {len(rewritten)} rewritten {seconds:.1f}s",
        file=sys.stderr,
    )
    return 0
