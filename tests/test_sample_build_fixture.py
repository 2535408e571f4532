"""The machinery that lets `make test` share one sample build and never go silent (tests/support)."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.conftest import pytest_collection_modifyitems, whole_suite
from tests.support import sample_build
from tests.support.heartbeat import Heartbeat


def test_the_first_caller_starts_the_build_and_the_second_does_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[list[str]] = []

    class Recorded:
        pid = 4242

        def __init__(self, command: list[str], **_: object) -> None:
            started.append(command)

    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv(sample_build.REUSE, raising=False)
    monkeypatch.setattr(subprocess, "Popen", Recorded)
    sample_build.start_if_needed(tmp_path)
    sample_build.start_if_needed(tmp_path)  # e.g. the second xdist worker
    assert len(started) == 1 and started[0][-1] == str(tmp_path / "sample-build")
    assert (tmp_path / "sample-build/pid").read_text() == "4242"


def test_workers_share_the_controllers_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(sample_build.REUSE, raising=False)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert sample_build.shared_root(tmp_path / "popen-gw1") == tmp_path / "sample-build"


def test_a_failed_build_fails_the_waiting_test_with_the_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv(sample_build.REUSE, raising=False)
    root = tmp_path / "sample-build"
    root.mkdir()
    (root / "claimed").touch()
    (root / "build.log").write_text("Running stage 'dedup':\nERROR: failed to reproduce 'dedup'\n")
    (root / "failed").write_text("1\n")
    with pytest.raises(RuntimeError, match=r"(?s)sample build failed.*failed to reproduce 'dedup'"):
        sample_build.wait_for_build(tmp_path, lambda line: None)


def test_each_stage_line_is_shown_once_among_the_waiting_workers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv(sample_build.REUSE, raising=False)
    monkeypatch.setattr(sample_build, "POLL_SECONDS", 0.01)
    root = tmp_path / "sample-build"
    root.mkdir()
    (root / "claimed").touch()
    (root / "build.log").write_text("Running stage 'a':\n> cmd a\nRunning stage 'b':\n")
    (root / "done").touch()
    (root / "project").mkdir()
    shown: list[str] = []
    # Done already: nothing is shown. A waiting worker shows what the log holds, once.
    assert sample_build.wait_for_build(tmp_path, shown.append) == root / "project"
    (root / "done").unlink()
    first, second = [], []

    def show_then_finish(line: str) -> None:
        first.append(line)
        if len(first) == 2:
            (root / "done").touch()

    sample_build.wait_for_build(tmp_path, show_then_finish)
    sample_build.wait_for_build(tmp_path, second.append)  # another worker, later: the lines are taken
    assert [line.split(": ", 1)[1] for line in first] == ["Running stage 'a'", "Running stage 'b'"]
    assert shown == [] and second == []


@pytest.mark.parametrize(
    ("workers", "order"),
    [
        # one process: last, the rebuilding ones first, the longest first
        ("1", ["unit", "unit2", "mypy", "longest", "longer", "long", "reads"]),
        # two: the longest and the third begin the second share (3 of 7), the second ends the first share
        ("2", ["unit", "unit2", "longer", "longest", "long", "reads", "mypy"]),
    ],
)
def test_tests_on_the_sample_begin_the_last_share_the_rebuilding_ones_first(
    workers: str, order: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def item(name: str, fixtures: tuple[str, ...], *markers: str, seconds: float = 0) -> SimpleNamespace:
        def marker(wanted: str) -> object | None:
            if wanted == "rebuilds" and seconds:
                return pytest.mark.rebuilds(seconds).mark
            return object() if wanted in markers else None

        return SimpleNamespace(name=name, fixturenames=fixtures, get_closest_marker=marker)

    items = [
        item("reads", ("built", "sample_build"), "slow"),
        item("unit", ("tmp_path",)),
        item("long", ("fresh", "sample_build"), "slow", seconds=20),
        item("longest", ("sample_build", "tmp_path"), "slow", seconds=100),
        item("unit2", ()),
        item("longer", ("fresh", "sample_build"), "slow", seconds=60),
        item("mypy", (), "slow"),
    ]
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", workers)
    pytest_collection_modifyitems(items)  # type: ignore[arg-type]
    assert [i.name for i in items] == order


def test_a_long_test_gets_a_still_running_line() -> None:
    read_end, write_end = os.pipe()
    beat = Heartbeat(every=0.2, stream=write_end)
    beat.begin("tests/test_x.py::test_slow")
    time.sleep(0.7)
    beat.end()
    os.close(write_end)
    said = os.read(read_end, 10_000).decode()
    assert "still running tests/test_x.py::test_slow (" in said
    assert 2 <= said.count("still running") <= 4  # one line per 0.2 s of the 0.7 s, not one per poll


def test_only_the_whole_suite_starts_the_build_before_collection() -> None:
    def config(source: pytest.Config.ArgsSource, markexpr: str = "", keyword: str = "") -> SimpleNamespace:
        return SimpleNamespace(args_source=source, option=SimpleNamespace(markexpr=markexpr, keyword=keyword))

    assert whole_suite(config(pytest.Config.ArgsSource.TESTPATHS))  # type: ignore[arg-type]
    assert not whole_suite(config(pytest.Config.ArgsSource.ARGS))  # type: ignore[arg-type]  # one file
    assert not whole_suite(config(pytest.Config.ArgsSource.TESTPATHS, markexpr="not slow"))  # type: ignore[arg-type]
    assert not whole_suite(config(pytest.Config.ArgsSource.TESTPATHS, keyword="dedup"))  # type: ignore[arg-type]


# DVC's own graph code (pygtrie) warns on every path it walks: not ours to fix, and noise in the summary.
@pytest.mark.filterwarnings("ignore:_NoneStep.value:DeprecationWarning")
def test_the_parallel_plan_keeps_both_cores_busy_on_this_dag() -> None:
    """Each phase runs two non-empty, disjoint sets of stages, and code_hashes (upstream of every stage) is in
    neither: were it shared, every stage would depend on it and both sets would be empty (a serial build)."""
    root = Path(__file__).resolve().parents[1]
    phases = sample_build.plan(root)
    assert len(phases) == len(sample_build.PHASES)
    seen: set[str] = set()
    for first, second in phases:
        assert first and second
        assert not set(first) & set(second)
        assert not (set(first) | set(second)) & seen, "a stage planned in two phases"
        seen |= set(first) | set(second)
    assert "dedup" in phases[0][0] and "wiki_filter" in phases[0][1]
    assert sample_build.CODE_HASHES not in seen


def test_the_tests_on_the_build_start_the_last_workers_share() -> None:
    """worksteal's first shares, worked out by hand: each idle worker in turn gets what is pending divided by
    the workers left (2,015 on two: 1,007 then 1,008; 10 on three: 3, 3, 4)."""
    from tests.conftest import last_share_start

    assert last_share_start(2015, 2) == 1007
    assert last_share_start(10, 3) == 6
    assert last_share_start(10, 1) == 10  # one process: the tests on the build run last


def test_a_reused_build_is_never_built_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ALMANAC_TEST_SAMPLE_BUILD names a finished build (e.g. one `python -m tests.support.sample_build ROOT`
    made, which leaves no claim file): a run on it must not start a build there, which would copy the
    repository's params.yaml and dvc.yaml over the built project's; a folder with no finished build fails."""
    started: list[object] = []
    monkeypatch.setattr(subprocess, "Popen", lambda *args, **kwargs: started.append(args))
    monkeypatch.setenv(sample_build.REUSE, str(tmp_path))
    (tmp_path / "project").mkdir()
    with pytest.raises(RuntimeError, match="not a finished sample build"):
        sample_build.wait_for_build(tmp_path / "basetemp", lambda line: None)
    (tmp_path / "done").write_text("0\n")
    assert sample_build.wait_for_build(tmp_path / "basetemp", lambda line: None) == tmp_path / "project"
    sample_build.start_if_needed(tmp_path / "basetemp")
    assert started == [] and not (tmp_path / "claimed").exists()
