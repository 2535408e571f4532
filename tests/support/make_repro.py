"""`dvc repro` as `make repro` runs it (``python -m almanac.core.repro``) in a scratch project, and which
stages it ran.

The launcher is DVC's own `repro` in one process with its bookkeeping trimmed (almanac/core/repro.py: one
YAML parse per text, the lock edited without ruamel's round trip, each stage built once): ~0.7 s of CPU
less per stage that runs than a plain `dvc repro`, for the same decisions and outputs
(tests/test_repro_launcher.py). Quiet, it names each stage that ran on one line, ``ran NAME (S s)``, where
DVC says ``Running stage 'NAME':``; a stage's own output and DVC's warnings and errors are unchanged.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.support.project import BIN, run

RAN = re.compile(r"^ran (\S+) \(\d+\.\d s\)$", re.MULTILINE)


def repro(args: list[str], project: Path) -> tuple[list[str], subprocess.CompletedProcess[str]]:
    """Run `make repro`'s launcher with ``args`` (DVC repro's) in ``project``; the stages it ran, in order."""
    result = run([str(BIN / "python"), "-m", "almanac.core.repro", *args], project)
    return RAN.findall(result.stdout), result
