"""The bundled sample built once per test run, in the background, for every test that reads a built project.

`dvc repro` of the whole sample is the longest single thing the suite does (minutes on 2 cores), so it starts
as soon as collection shows a test that needs it (`start_if_needed`) and runs while the other tests do; those
tests are ordered last (conftest.py). Under pytest-xdist the workers share one build: the first worker to get
here starts it (an O_EXCL claim file), and every worker waits for the same `done` file. A test that has to
wait prints the build's stage lines as they come, so the run is never silent while it waits.

Run as `python -m tests.support.sample_build ROOT` it is the build itself: ROOT/project, log in ROOT/build.log.
To run the whole-pipeline tests again on a build you have (the edit-test loop of a test, not of the code it
tests), set ALMANAC_TEST_SAMPLE_BUILD=ROOT of a finished build: nothing is built then.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from tests.support.project import ROOT, env, make_project

FIXTURE = "sample_build"
POLL_SECONDS = 1.0
TESTS_NICENESS = 5  # the tests' priority below the build's, which started before they lowered it
TIMEOUT_SECONDS = 3600  # far above any sample build; a hung build fails its tests instead of the whole run


REUSE = "ALMANAC_TEST_SAMPLE_BUILD"  # a finished build's folder (this module's ROOT) to test again, unbuilt


def shared_root(basetemp: Path) -> Path:
    """One folder for the whole run: an xdist worker's basetemp is a subfolder of the controller's."""
    if os.environ.get(REUSE):
        return Path(os.environ[REUSE])  # tests copy the project before changing it, so it stays as built
    root = basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp
    return root / "sample-build"


def start_if_needed(basetemp: Path) -> None:
    """Start the build in the background unless this run already has (or had) one."""
    if os.environ.get(REUSE):
        return  # a finished build to test again: building there would overwrite its project's files
    root = shared_root(basetemp)
    root.mkdir(parents=True, exist_ok=True)
    try:
        claim = os.open(root / "claimed", os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return  # another worker started it
    os.close(claim)
    with (root / "build.log").open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "tests.support.sample_build", str(root)],
            cwd=ROOT,
            env={**env(), "PYTHONPATH": str(ROOT)},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: stopped as a whole at the end of the run
        )
    (root / "pid").write_text(str(process.pid))


def stop_if_running(basetemp: Path) -> None:
    """At the end of the run (the process that owns the shared folder): stop a build nobody waited for."""
    pid_file = shared_root(basetemp) / "pid"
    if os.environ.get(REUSE) or not pid_file.is_file():  # a reused build is not this run's to stop
        return
    pid = int(pid_file.read_text())
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return  # finished (or not Linux: the build ends by itself)
    if b"tests.support.sample_build" in cmdline:
        os.killpg(pid, signal.SIGTERM)


def wait_for_build(basetemp: Path, show: Callable[[str], None]) -> Path:
    """The built project, once the build is done; its stage lines go to `show` while this waits."""
    root = shared_root(basetemp)
    if os.environ.get(REUSE) and not (root / "done").exists():
        raise RuntimeError(f"{REUSE}={root} is not a finished sample build (no {root / 'done'})")
    if not (root / "claimed").exists():
        start_if_needed(basetemp)  # a run whose collection hook did not see the fixture (e.g. indirect use)
    log = root / "build.log"
    shown = 0
    started = time.monotonic()

    def show_new_lines() -> int:
        lines = log.read_text(errors="replace").splitlines() if log.exists() else []
        for number, line in enumerate(lines[shown:], start=shown):
            # its stages as they start, its phases and its end (with its CPU seconds)
            if line.startswith(("Running stage", "sample build:")) and _first_to_show(root, number):
                # The build's age, not this wait's: it started when the claim was made.
                since = time.time() - (root / "claimed").stat().st_mtime
                text = line.rstrip(":").removeprefix("sample build: ")
                show(f"sample build [{since:4.0f} s]: {text}")
        return max(shown, len(lines))

    waited = False
    while not (root / "done").exists():
        waited = True
        if (root / "failed").exists() or not _alive(root) or time.monotonic() - started > TIMEOUT_SECONDS:
            tail = log.read_text(errors="replace")[-4000:] if log.exists() else ""
            raise RuntimeError(f"the sample build failed (log: {log}):\n{tail}")
        shown = show_new_lines()
        time.sleep(POLL_SECONDS)
    if waited:
        show_new_lines()  # the build's last line, written just before `done`
    return root / "project"


def _first_to_show(root: Path, number: int) -> bool:
    """Of the workers waiting, one shows each line (the first to claim it)."""
    (root / "shown").mkdir(exist_ok=True)
    try:
        os.close(os.open(root / "shown" / str(number), os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def _alive(root: Path) -> bool:
    """False only when the build process is known to be gone without having written done or failed."""
    pid_file = root / "pid"
    if not pid_file.is_file() or not Path("/proc").is_dir():
        return True  # still starting, or no /proc to ask: the timeout decides
    return Path(f"/proc/{pid_file.read_text().strip()}").exists() or (root / "done").exists()


# The build on both cores: DVC runs a stage's command with the repository lock released, so two `dvc
# --wait-for-lock repro --single-item` processes on disjoint sets of stages (each its set's stages in
# dependency order; each waits while the other does its bookkeeping) run their stages side by side. Not
# `dvc repro TARGET`: that visits (and write-locks the outputs of) every upstream stage, so the second
# process fails on a stage the first is only checking. Each phase's two sets are the stages upstream of its
# targets not built by an earlier phase, less any stage the two share and what depends on it. This is a
# speed hint only: a target missing from dvc.yaml is left out, a set that fails is reported, and the closing
# plain `dvc repro` builds whatever is left (FutureX, the cross-style check) and alone decides whether the
# build succeeded.
PHASES: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (  # the CC-News corpus | the sources that need no corpus
        ("dedup",),
        ("gdelt_clean", "wiki_filter", "wcep_ingest", "series_ingest"),
    ),
    (  # OpenForesight and FutureSim | MIRAI and OpenForecast (the series questions read the FutureSim
        # index, and every report, with its style's statistics, reads the one check stage, so the closing
        # `dvc repro` builds those)
        ("corpus_stats", "foresight_split", "futuresim_funnel"),
        ("relation_split", "gdelt_articles", "event_split"),
    ),
)


CODE_HASHES = "code_hashes"  # almanac.pipeline.code_stage.CODE_HASHES (not imported: a test-support module)


def plan(project: Path) -> list[list[list[str]]]:
    """Per phase, the two disjoint lists of stage names to run, each in dependency order."""
    import networkx as nx
    from dvc.repo import Repo

    with Repo(str(project)) as repo:
        graph = repo.index.graph  # an edge goes from a stage to a stage it depends on
        by_name = {stage.name: stage for stage in graph.nodes}
        upstream = {
            name: {dep.name for dep in nx.descendants(graph, stage)} for name, stage in by_name.items()
        }
        order = [stage.name for stage in reversed(list(nx.topological_sort(graph)))]
    # code_hashes is upstream of every stage (their fingerprints): it runs alone first (build), so it counts
    # as built here, or it would be the one stage the two sets share and leave both sets empty.
    built: set[str] = {CODE_HASHES} & set(by_name)
    phases = []
    for groups in PHASES:
        closures = []
        for targets in groups:
            # a per-month stage named without its month (``relation_split``) stands for all its items
            stages = {name for name in by_name if name in targets or name.partition("@")[0] in targets}
            names = {name for stage in stages for name in {stage, *upstream[stage]}}
            closures.append(names - built)
        shared = set.intersection(*closures)
        sets = [
            [name for name in order if name in names and name not in shared and not upstream[name] & shared]
            for names in closures
        ]
        phases.append(sets)
        built.update(*map(set, sets))
    return phases


def build(root: Path) -> int:
    project = make_project(root / "project", ray__executor="serial")
    started = time.monotonic()
    try:
        phases = plan(project)
    except Exception as error:  # the plan is a speed hint: the plain `dvc repro` below builds it all anyway
        print(f"sample build: no parallel plan ({error!r}); one `dvc repro`", flush=True)
        phases = []
    # DVC with make repro's bookkeeping patches (tests/support/patched_dvc.py): the same outputs and dvc.lock
    # as plain `dvc`, ~1 s of CPU less per stage.
    dvc = [sys.executable, "-m", "tests.support.patched_dvc"]
    dvc_env = {**env(), "PYTHONPATH": str(ROOT)}
    command = [*dvc, "--wait-for-lock", "repro", "--single-item"]
    if phases:
        subprocess.run([*command, CODE_HASHES], cwd=project, env=dvc_env, check=False)
    for number, sets in enumerate(phases, start=1):
        running = [
            (names, subprocess.Popen([*command, *names], cwd=project, env=dvc_env)) for names in sets if names
        ]
        for names, process in running:
            if process.wait() != 0:
                print(f"sample build: phase {number} failed in {names}; the last repro goes on", flush=True)
        print(f"sample build: phase {number} done after {time.monotonic() - started:.0f} s", flush=True)
    done = subprocess.run([*dvc, "repro"], cwd=project, env=dvc_env, check=False)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"sample build: dvc repro exited {done.returncode} after {time.monotonic() - started:.0f} s"
        f" ({used.ru_utime + used.ru_stime:.0f} s CPU)"
    )
    (root / ("done" if done.returncode == 0 else "failed")).write_text(f"{done.returncode}\n")
    return done.returncode


if __name__ == "__main__":
    target = Path(sys.argv[1])
    try:
        code = build(target)
    except BaseException:  # not around sys.exit: its SystemExit would mark a good build failed too
        (target / "failed").write_text("exception\n")
        raise
    sys.exit(code)
