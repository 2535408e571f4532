"""``make repro``'s DVC path run in the test process (tests/test_repro_launcher.py, tests/test_noop_recheck.py)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest

from almanac.core import repro


def dvc_patch_points() -> list[tuple[Any, str]]:
    """The DVC functions repro.main replaces (each call wraps what it finds there)."""
    from dvc import rwlock
    from dvc.dependency import param
    from dvc.repo.stage import StageLoad
    from dvc.stage import Stage
    from dvc.utils import strictyaml
    from dvc.utils.serialize import _yaml

    return [
        (_yaml, "parse_yaml"),
        (_yaml, "parse_yaml_for_update"),
        (strictyaml, "parse_yaml"),
        (strictyaml, "validate"),
        (param, "read_param_file"),
        (rwlock, "rwlock"),
        (StageLoad, "load_all"),
        (Stage, "reproduce"),
    ]


def repro_here(project: Path, *args: str) -> str:
    """``make repro``'s DVC path (repro.main, which runs DVC's own command line) in this process: what it
    printed. For the runs that must take DVC's path: a process would spend ~1 s of CPU importing DVC
    again, and what such a run proves is which stages it ran (only DVC's path runs any) and what it
    built. The fast path's runs stay processes (``_launch`` in tests/test_repro_launcher.py): that it
    never imports DVC is what they prove. The DVC functions repro.main patches are put back afterwards,
    so each run starts from DVC's own, as a process does."""
    printed = io.StringIO()
    with pytest.MonkeyPatch.context() as scoped:
        for owner, name in dvc_patch_points():
            scoped.setattr(owner, name, getattr(owner, name))
        scoped.chdir(project)
        scoped.setenv("DVC_NO_ANALYTICS", "1")  # as _launch's process has it
        # DVC's console starts disabled in a process and only a run without --quiet enables it; another
        # test of this process that ran DVC's command line left it on (DVC's own "Data and pipelines are
        # up to date." then printed under --quiet).
        from dvc.ui import ui

        scoped.setattr(ui, "_enabled", False)
        with contextlib.redirect_stdout(printed):
            status = repro.main(list(args))
    assert status == 0, printed.getvalue()
    return printed.getvalue().rstrip("\n")


def ran(printed: str) -> list[str]:
    return sorted(line.split()[1] for line in printed.splitlines() if line.startswith("ran "))
