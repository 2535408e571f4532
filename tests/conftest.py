"""Session-wide test settings."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.support import rewrite_ahead, timings
from tests.support import sample_build as sample
from tests.support.heartbeat import Heartbeat

# No test may touch the network: the Hugging Face libraries (card parsing, `datasets` loading published
# folders) must stay offline. Set before either library is imported, since both read these at import.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


_heartbeat: Heartbeat | None = None  # this process's tests (an xdist worker's, or the one process's)
_collecting: Heartbeat | None = (
    None  # the run's line while the tests are collected (minutes on a busy machine)
)
_times = timings.from_environment()  # ALMANAC_TEST_TIMES=<file>: each test's wall and CPU (docs/testing.md)


def whole_suite(config: pytest.Config) -> bool:
    """The run is the whole suite (`make test`: the configured test paths, no marker, keyword or last-failed
    filter), so the tests on the sample build are certainly selected."""
    return (
        config.args_source == pytest.Config.ArgsSource.TESTPATHS
        and not config.option.markexpr
        and not config.option.keyword
        and not getattr(config.option, "lf", False)
    )


def pytest_sessionstart(session: pytest.Session) -> None:
    """Between pytest's captures (after the conftests loaded, before collection), so fd 2 is the real one."""
    global _heartbeat, _collecting, _times
    config = session.config
    if config.option.collectonly:
        return
    if _times is not None:
        _times.begin("<collection>")  # this process's: ends when its first test starts
    if os.environ.get("PYTEST_XDIST_WORKER"):
        _heartbeat = Heartbeat()
        return
    if whole_suite(config):
        # The build is the run's critical path: start it now rather than after collection (each xdist
        # worker imports every test module first, a minute or more on 2 busy cores).
        sample.start_if_needed(config._tmp_path_factory.getbasetemp())
    _collecting = Heartbeat()
    _collecting.begin("test collection")
    if not config.pluginmanager.hasplugin("dsession"):
        _heartbeat = _collecting  # one process: the same heartbeat goes on with its tests
    else:
        # the xdist controller runs no test: its workers beat, and this one stops at the first test; it sees
        # the workers' test hooks too, so only the workers time them
        _times = None
        rewrite_ahead.start(config, Path(__file__).parent)  # once here, not once per worker


def pytest_runtest_logstart(nodeid: str) -> None:
    global _collecting
    if _collecting is not None and _collecting is not _heartbeat:
        _collecting.end()
    _collecting = None
    if _heartbeat is not None:
        _heartbeat.begin(nodeid)
    if _times is not None:
        _times.end()  # the collection's record, before this process's first test
        _times.begin(nodeid)


def pytest_runtest_logfinish() -> None:
    if _heartbeat is not None:
        _heartbeat.end()
    if _times is not None:
        _times.end()


def _needs_sample(item: pytest.Item) -> bool:
    return sample.FIXTURE in getattr(item, "fixturenames", ())


def rebuild_cost(item: pytest.Item) -> float:
    """A test's `rebuilds(seconds)` mark: the rough length of its own `dvc repro` (0: it only reads the build)."""
    mark = item.get_closest_marker("rebuilds")
    if mark is None:
        return 0.0
    return float(mark.args[0]) if getattr(mark, "args", ()) else 1.0


@pytest.hookimpl(trylast=True)  # after any shuffling plugin: it still shuffles within each of the two groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests on the built sample start the last worker's share, the ones marked `rebuilds` (a long `dvc repro`
    of their own) first: that worker waits for the build (started at collection) while the others run the
    rest, then begins the longest work as soon as the build is done instead of at the end of the run, where
    one long test left the other core idle. Every second of the rebuilding tests (by their marked length)
    ends the first worker's share instead, which reaches it after its own tests, when the build is done:
    the two workers rebuild side by side rather than one after the other. xdist's worksteal gives each
    worker a contiguous share of the collected list (``last_share_start``) and later moves the tail of a
    long queue to an idle worker, so the other tests keep their shuffled order (the `slow` ones first in
    each share: ``slow_first``). In one process (no xdist), they simply run last, the longest first."""
    rest = [item for item in items if not _needs_sample(item)]
    built = sorted((item for item in items if _needs_sample(item)), key=lambda item: -rebuild_cost(item))
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers <= 1:
        items[:] = rest + built
        return
    rebuilding = [item for item in built if rebuild_cost(item) > 0]
    late = rebuilding[1::2]  # the end of the first worker's share
    first = rebuilding[0::2] + [item for item in built if rebuild_cost(item) == 0]
    at = max(0, last_share_start(len(items), workers) - len(late))
    items[:] = slow_first(rest[:at]) + late + first + slow_first(rest[at:])


def slow_first(items: list[pytest.Item]) -> list[pytest.Item]:
    """The tests marked `slow` first, each group in its (shuffled) order: a worker's share of the other
    tests then ends with short ones, which worksteal hands to whichever worker is idle, so the two workers
    end together instead of one waiting while the other finishes a long test that happened to come last."""
    slow = [item for item in items if item.get_closest_marker("slow") is not None]
    return slow + [item for item in items if item.get_closest_marker("slow") is None]


def last_share_start(count: int, workers: int) -> int:
    """Where the last worker's first share of ``count`` collected tests starts: worksteal hands the idle
    workers, in turn, an equal part of what is still pending (so 1007 and 1008 of 2,015 on two workers)."""
    if workers <= 1:
        return count
    start = 0
    for turn in range(workers - 1):
        start += (count - start) // (workers - turn)
    return start


def pytest_collection_finish(session: pytest.Session) -> None:
    if session.config.option.collectonly or not any(map(_needs_sample, session.items)):
        return
    sample.start_if_needed(session.config._tmp_path_factory.getbasetemp())  # the run's own tmp_path root
    # The build is the run's longest chain (the tests on it wait for it): where the cores are busy, the
    # tests (this process and what it starts) yield to it. Lowering one's own priority needs no privilege.
    os.nice(sample.TESTS_NICENESS)


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER") and hasattr(session.config, "_tmp_path_factory"):
        sample.stop_if_running(session.config._tmp_path_factory.getbasetemp())


@pytest.fixture(scope="session")
def sample_build(tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config) -> Path:
    """The bundled sample built once per run by `dvc repro` in a scratch project (shared by xdist workers);
    copy it before changing it (`shutil.copytree(sample_build, target, symlinks=True)`)."""
    capture = pytestconfig.pluginmanager.getplugin("capturemanager")

    def show(line: str) -> None:  # past pytest's capture: the run says what it waits for
        with capture.global_and_fixture_disabled():
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        if _heartbeat is not None:
            _heartbeat.said_something()

    return sample.wait_for_build(tmp_path_factory.getbasetemp(), show)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """The test order is shuffled (pytest-randomly); name its seed at the end too, where -q shows it."""
    seed = getattr(config.option, "randomly_seed", None)
    if isinstance(seed, int):
        terminalreporter.write_line(
            f"random test order: --randomly-seed={seed} repeats it (-p no:randomly: file order)"
        )
