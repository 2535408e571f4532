"""The ``code_hashes`` stage: one fingerprint of code files per stage (``data/code/<stage>.sha256``).

A fingerprint lists ``<sha256>  <path>`` for each of the stage's code files (``render.code_files``: its
import closure and the prompts it may send), in ``sha256sum`` format, so ``sha256sum -c`` checks it and a
diff of two fingerprints names the files that changed. It is written only when its text changes (atomically),
so DVC sees a changed dep exactly in the stages whose code changed. The closures are walked here, from the
code as it is now, with the same walk that rendered dvc.yaml: a closure that grew since the last
``almanac dag`` still changes the fingerprint (and the test that dvc.yaml is the rendering fails).

It also copies params.yaml to ``data/code/params.json`` (sorted keys, the values the stages read with
``yaml.safe_load``), the params file every stage's ``params:`` names in dvc.yaml: DVC reads a stage's params
file once per stage per run, and JSON loads ~50x faster than YAML. Rewritten only when its text changes too.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from almanac.core.io import atomic_path
from almanac.pipeline.code_stage import CODE_HASHES, PARAMS_COPY, PARAMS_FILE, fingerprint_path
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


def params_json(params_yaml: str) -> str:
    """params.yaml's values as JSON with sorted keys: the same text for the same values, whatever the order
    or comments of the YAML. A value JSON cannot hold (a YAML date, say) is a ValueError naming it."""
    import yaml

    def refuse(value: object) -> object:
        raise ValueError(f"{PARAMS_FILE}: {value} ({type(value).__name__}) has no JSON form; quote it")

    data = yaml.safe_load(params_yaml) or {}
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False, default=refuse) + "\n"


def write_params_copy(root: Path) -> bool:
    """Write ``data/code/params.json`` from ``root/params.yaml`` when its text changes; whether it did."""
    text = params_json((root / PARAMS_FILE).read_text(encoding="utf-8"))
    return _write_if_changed(root / PARAMS_COPY, text)


def _write_if_changed(target: Path, text: str) -> bool:
    if target.is_file() and target.read_text(encoding="utf-8") == text:
        return False
    # Atomic: a reader (DVC hashing it) sees the old text or the new, whole.
    with atomic_path(target) as temporary:
        temporary.write_text(text, encoding="utf-8")
    return True


def write_fingerprints(stages: Sequence[Stage], root: Path) -> list[str]:
    """Write each stage's fingerprint under ``root`` where its text changed; the stages rewritten."""
    rewritten: list[str] = []
    digests: dict[str, str] = {}
    for stage in stages:
        if stage.name == CODE_HASHES:
            continue
        if _write_if_changed(root / fingerprint_path(stage.name), fingerprint(stage, root, digests)):
            rewritten.append(stage.name)
    return rewritten


def main() -> int:
    from almanac.pipeline.dag import STAGES

    started = time.perf_counter()
    if len(sys.argv) > 1:
        print(f"{CODE_HASHES}: takes no arguments", file=sys.stderr)
        return 2
    rewritten = write_fingerprints(STAGES, Path.cwd())
    params = "rewritten" if write_params_copy(Path.cwd()) else "unchanged"
    seconds = time.perf_counter() - started
    print(
        f"{CODE_HASHES}: {len(STAGES) - 1} fingerprints, {len(rewritten)} rewritten; {PARAMS_COPY} {params}"
        f" {seconds:.1f}s",
        file=sys.stderr,
    )
    return 0
