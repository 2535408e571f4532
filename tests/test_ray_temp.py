"""Ray's temp folders are this user's only (0700), and the private Ray keeps its own, removed at exit (issue 24)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

# The private Ray's own temp folder (0700, removed at exit) is checked in tests/test_ray.py, on the private
# Ray that test module starts anyway.


def test_private_umask_makes_new_folders_0700(tmp_path: Path) -> None:
    from almanac.core.ray_cluster import private_umask

    before = os.umask(0o022)
    os.umask(before)
    with private_umask():
        (tmp_path / "made").mkdir()
    assert stat.S_IMODE((tmp_path / "made").stat().st_mode) == 0o700
    after = os.umask(0o022)
    os.umask(after)
    assert after == before  # restored
