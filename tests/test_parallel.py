"""parallel_map's in-process path (no Ray imported or started), shards, and the project cluster's safety."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import psutil
import pytest

from almanac.core import parallel
from almanac.core.layout import ray_cluster_file
from almanac.core.parallel import RayConfig, item_bytes, shard_indices
from almanac.core.ray_cluster import TEMP_PARENT, TEMP_PREFIX, ClusterError, read_cluster, stop_cluster
from tests.support.project import make_project, output_digests, run

ROOT = Path(__file__).resolve().parents[1]

# In a fresh interpreter (pytest's may have imported Ray for other tests): the executor is Ray, but the
# call is below the threshold, so Ray must stay unimported and no process may be started.
BELOW_THRESHOLD = """
import json, sys, time, psutil
from almanac.core.parallel import RayConfig, parallel_map

def square(value):
    return value * value

config = RayConfig(**json.loads(sys.argv[1]))
result = parallel_map(square, list(range(int(sys.argv[2]))), config)
print(json.dumps({"result": result, "ray_imported": "ray" in sys.modules,
                  "children": len(psutil.Process().children(recursive=True))}))
"""


def _run_below_threshold(config: dict[str, object], items: int) -> dict[str, object]:
    env = {**os.environ, "RAY_ADDRESS": "127.0.0.1:9"}  # a cluster Ray would try if it were asked
    done = subprocess.run(
        [sys.executable, "-c", BELOW_THRESHOLD, json.dumps(config), str(items)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_fewer_items_than_min_items_run_in_process_without_ray() -> None:
    found = _run_below_threshold({"executor": "ray", "min_items": 5, "min_bytes": 0}, 4)
    assert found == {"result": [0, 1, 4, 9], "ray_imported": False, "children": 0}


def test_items_under_min_bytes_run_in_process_without_ray() -> None:
    # 50 small ints carry 0 bytes of input: under a 1-byte floor, however many items there are.
    found = _run_below_threshold({"executor": "ray", "min_items": 2, "min_bytes": 1}, 50)
    assert found == {"result": [value * value for value in range(50)], "ray_imported": False, "children": 0}


def test_runs_in_process_rules() -> None:
    assert RayConfig(executor="serial", min_items=0).runs_in_process(1000)
    assert RayConfig(min_items=0).runs_in_process(1)  # one item: nothing to spread
    assert RayConfig(min_items=8).runs_in_process(7)
    assert not RayConfig(min_items=8).runs_in_process(8)
    assert RayConfig(min_items=2, min_bytes=1000).runs_in_process(8, 999)
    assert not RayConfig(min_items=2, min_bytes=1000).runs_in_process(8, 1000)
    assert not RayConfig(min_items=2, min_bytes=0).runs_in_process(8, 0)  # 0: no floor
    with pytest.raises(ValueError, match="min_items"):
        RayConfig(min_items=-1)
    with pytest.raises(ValueError, match="min_bytes"):
        RayConfig(min_bytes=-1)


@dataclass(frozen=True)
class _Task:
    path: str
    label: str
    texts: list[str]
    matrix: np.ndarray
    retries: int


def test_item_bytes_counts_what_a_task_carries_or_names(tmp_path: Path) -> None:
    warc = tmp_path / "a.warc.gz"
    warc.write_bytes(b"x" * 1000)
    # path: the file's 1000 bytes (not its name's length); label: 5 chars; texts: 3 + 2; matrix: 4x2 uint64;
    # an int counts nothing.
    task = _Task(str(warc), "label", ["abc", "de"], np.zeros((4, 2), dtype=np.uint64), 3)
    assert item_bytes(task) == 1000 + 5 + 3 + 2 + 4 * 2 * 8
    assert item_bytes(warc) == 1000
    assert item_bytes(_Task(str(tmp_path / "missing"), "", [], np.zeros(0), 0)) == 0
    assert item_bytes([b"ab", "cde", 7]) == 5


def _square(value: int) -> int:
    return value * value


def test_a_ray_start_failure_runs_the_call_in_process_with_a_one_line_note(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The loaded-machine case of issue 27: the node times out while Ray starts. The stage must not fail.
    def timed_out(config: RayConfig) -> None:
        raise TimeoutError("The current node timed out during startup.\nSee the raylet log.")

    monkeypatch.setattr(parallel, "init_ray", timed_out)
    found = parallel.parallel_map(_square, list(range(6)), RayConfig(min_bytes=0))
    assert found == [0, 1, 4, 9, 16, 25]
    note = capsys.readouterr().err.strip().splitlines()
    assert note == [
        "ray: could not start or join Ray (The current node timed out during startup. See the raylet log.);"
        " running 6 items in-process"
    ]


def test_a_missing_project_cluster_is_no_start_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    # ray.address: auto without `make ray-up` is the user's setting to fix, not something to hide.
    def no_cluster(config: RayConfig) -> None:
        raise ClusterError("ray.address is 'auto' but no project Ray cluster runs")

    monkeypatch.setattr(parallel, "init_ray", no_cluster)
    with pytest.raises(ClusterError, match="no project Ray cluster"):
        parallel.parallel_map(_square, [1, 2], RayConfig(address="auto", min_bytes=0))


def test_shard_indices_group_equal_keys_in_ascending_rows() -> None:
    keys = np.array([7, 2, 9, 4, 7, 12, 2**64 - 1], dtype=np.uint64)
    # key % 3: 7->1, 2->2, 9->0, 4->1, 7->1, 12->0, 2**64-1 -> 0 (2**64 = 1 mod 3, so 2**64-1 = 0 mod 3)
    shards = shard_indices(keys, 3)
    assert [shard.tolist() for shard in shards] == [[2, 5, 6], [0, 3, 4], [1]]
    assert [shard.tolist() for shard in shard_indices(keys[:0], 2)] == [[], []]
    with pytest.raises(ValueError, match="shards"):
        shard_indices(keys, 0)


def test_auto_without_a_project_cluster_names_the_fix(tmp_path: Path) -> None:
    with pytest.raises(ClusterError, match=r"no project Ray cluster runs .*make ray-up"):
        read_cluster(tmp_path)


def _state(tmp_path: Path, pid: int, create_time: float, temp_dir: Path) -> Path:
    path = tmp_path / ray_cluster_file()
    path.parent.mkdir(exist_ok=True)
    node = {"pid": pid, "create_time": create_time, "log": str(temp_dir / "head.log")}
    state = {"address": "127.0.0.1:9", "token": "t", "temp_dir": str(temp_dir), "nodes": [node]}
    path.write_text(json.dumps(state))
    return path


def test_a_recycled_pid_is_neither_joined_nor_stopped(tmp_path: Path) -> None:
    # The state file names a live process of ours, but with another start time: the pid was recycled
    # since `make ray-up`, so this process is no cluster node and must survive `make ray-down`.
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    temp_dir = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX, dir=TEMP_PARENT))  # as `make ray-up` makes it
    try:
        started = psutil.Process(bystander.pid).create_time()
        state = _state(tmp_path, bystander.pid, started - 100.0, temp_dir)
        with pytest.raises(ClusterError, match="is gone"):
            read_cluster(tmp_path)
        assert stop_cluster(tmp_path) == 0
        assert bystander.poll() is None
        assert not state.exists() and not temp_dir.exists()  # a stale record is cleared
    finally:
        bystander.kill()
        bystander.wait()
        shutil.rmtree(temp_dir, ignore_errors=True)


def test_ray_down_removes_no_folder_it_did_not_make(tmp_path: Path) -> None:
    # A hand-edited state file naming some other folder (or a symlink to one): the record goes, the
    # folder and what it holds stay.
    foreign = tmp_path / "precious"
    foreign.mkdir()
    (foreign / "keep.txt").write_text("mine")
    link = tmp_path / f"{TEMP_PREFIX}link"
    link.symlink_to(foreign)
    for named in (foreign, link):
        state = _state(tmp_path, 1, 0.0, named)  # pid 1 with another start time: no node to stop
        assert stop_cluster(tmp_path) == 0
        assert not state.exists()
        assert (foreign / "keep.txt").read_text() == "mine"


@pytest.mark.slow  # a stage process
def test_a_stage_with_auto_and_no_project_cluster_exits_1_in_one_line(tmp_path: Path) -> None:
    project = make_project(tmp_path / "project", ray__address="auto", ray__min_bytes=0)
    done = run([sys.executable, "-m", "stages.ccnews_ingest", "--month", "2025-05"], project, check=False)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ccnews_ingest@2025-05: ray.address is 'auto' but no project Ray cluster runs")
    assert "Traceback" not in done.stderr and not (project / "data/ingest/2025-05").exists()


# Loaded by the stage's interpreter (PYTHONPATH): Ray's start fails as it did on the loaded machine.
START_FAILS = """
from almanac.core import parallel

def timed_out(config):
    raise RuntimeError("The current node timed out during startup")

parallel.init_ray = timed_out
"""


@pytest.mark.slow  # a stage process
def test_a_stage_whose_ray_start_fails_finishes_in_process_with_the_serial_outputs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from almanac.ccnews.ingest_stage import run as ccnews_ingest

    serial = make_project(tmp_path / "serial", ray__executor="serial")
    with monkeypatch.context() as scoped:  # the reference outputs, in this process (~1.5 s of CPU less)
        scoped.chdir(serial)
        scoped.setattr(sys, "argv", ["stages/ccnews_ingest.py", "--month", "2025-05"])
        scoped.setattr(sys, "excepthook", sys.excepthook)  # the stage sets its one-line hook
        assert ccnews_ingest() == 0
    project = make_project(tmp_path / "ray", ray__executor="ray", ray__min_bytes=0)
    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(START_FAILS)
    pythonpath = os.pathsep.join([str(hook), str(project)])
    done = run(
        [sys.executable, "-m", "stages.ccnews_ingest", "--month", "2025-05"],
        project,
        extra_env={"PYTHONPATH": pythonpath},
    )
    notes = [line for line in done.stderr.splitlines() if line.startswith("ray:")]
    assert notes == [
        "ray: could not start or join Ray (The current node timed out during startup); "
        "running 3 items in-process"
    ], done.stderr
    assert output_digests(project, ("data/ingest",)) == output_digests(serial, ("data/ingest",))
    assert output_digests(serial, ("data/ingest",))
