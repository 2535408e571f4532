"""Ray's temp folders are this user's only (0700), and the private Ray keeps its own, removed at exit (issue 24)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from almanac.core.ray_cluster import TEMP_PARENT, TEMP_PREFIX

pytestmark = [pytest.mark.ray, pytest.mark.slow]  # a real Ray instance takes ~15 s to start

# Runs in a child process: a private Ray, one task on a worker (so the workers' folders exist too), then
# every folder below Ray's temp folder with its mode, and where the session lives; the child then exits.
CHILD = """
import json, os, sys
import ray
from almanac.core.parallel import RayConfig, init_ray

def square(value):
    return value * value

init_ray(RayConfig(num_cpus=1, object_store_mb=100))
assert ray.get(ray.remote(square).remote(7)) == 49
session = ray._private.worker.global_worker.node.get_session_dir_path()
root = os.path.dirname(os.path.dirname(session))  # <holder>/ray/session_...
folders = {}
for parent, dirs, _ in os.walk(root):
    for name in dirs:
        path = os.path.join(parent, name)
        if not os.path.islink(path):  # session_latest is a link (mode 0777 by nature, never followed)
            folders[os.path.relpath(path, root)] = os.lstat(path).st_mode & 0o777
folders["."] = os.lstat(root).st_mode & 0o777
print(json.dumps({"root": root, "session": session, "folders": folders}))
"""


def test_private_ray_uses_its_own_0700_temp_folder_removed_at_exit(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "RAY_ADDRESS": ""}
    done = subprocess.run(
        [sys.executable, "-c", CHILD], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    root = Path(result["root"])
    # Its own folder made by mkdtemp under /tmp, not the shared /tmp/ray.
    assert root.parent == Path(TEMP_PARENT) and root.name.startswith(TEMP_PREFIX), root
    assert Path(result["session"]).is_relative_to(root)
    folders: dict[str, int] = result["folders"]
    # The folders the issue names, and every other one Ray made, are this user's only.
    assert folders["."] == 0o700 and folders["ray"] == 0o700
    names = {Path(relative).name for relative in folders}
    assert {"sockets", "runtime_resources", "logs"} <= names, sorted(names)
    assert {relative: oct(mode) for relative, mode in folders.items() if mode & 0o077} == {}
    assert not os.path.lexists(root)  # removed when the process exited


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
