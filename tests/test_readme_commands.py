"""Every command README and the docs it moved its details to show runs as written, on a copy of the sample build.

The ```bash blocks are read from README.md, then from each file of COMMAND_DOCS, and run in order, each as one bash script in a copy of the
built sample with `.venv` linked to this interpreter's environment (so `.venv/bin/...` means what it
means in a clone). README's blocks run in one copy, in order (its journeys build on each other: the param
change commits what `dvc metrics diff HEAD~1` compares); the other docs' blocks in another copy, in order, as a
reader who opens one of them after a build would: two tests that two xdist workers run side by side. A command that cannot run here is listed in NOT_RUN with the reason; a new README
command is run unless someone adds it there, so the list is the whole of what goes untested.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest
import yaml

from tests.support.project import ROOT, env, run

pytestmark = pytest.mark.slow

# Docs whose commands only benchmarks run (minutes at scale): their own entry point is `make bench`.
UNRUN_DOCS = {
    "docs/corpus_parts.md": "bench.dedup_scale builds 200k articles, minutes; `make bench` runs its N = 4 form",
    "docs/scaling.md": "bench.dedup_scale --million and bench.dedup take minutes; `make bench` runs them",
    "docs/testing.md": "a developer's loop with a placeholder (`tests/<dir>`); `make test` is what CI runs",
}

# Command prefix -> why the test does not run it (it runs elsewhere or needs what no test may use).
NOT_RUN = {
    "make repro": "setup is what CI's .ci/run does; its `dvc repro` half is the sample build itself",
    "make test": "the test suite is what runs this test",
    "make bench": "benchmarks take minutes at 10x input; `make bench` is their own entry point",
    "make ray-up": "starts a Ray cluster: tests/test_ray.py starts, joins and stops the same cluster",
    "make ray-down": "stops the cluster `make ray-up` started (tests/test_ray.py)",
    "HF_TOKEN=": "pushes to the Hugging Face Hub: needs the network and a token",
    ".venv/bin/python -m almanac.ccnews.download": "downloads from data.commoncrawl.org (tested on loopback)",
}


# README's details live in docs/ (README's table of contents lists them); their commands run here too, in this
# order (the order the sections had in README). A new docs file with commands joins this list.
COMMAND_DOCS = (
    "README.md",
    "docs/check.md",
    "docs/operations.md",
    "docs/openforesight.md",
    "docs/futuresim.md",
    "docs/openforecast.md",
    "docs/mirai.md",
    "docs/futurex.md",
    "docs/reports.md",
    "docs/llm.md",
    "docs/robustness.md",
    "docs/extending.md",
    "docs/publish.md",
)


def readme_blocks(text: str) -> list[tuple[int, list[str]]]:
    """(line number, commands) of each ```bash block; a trailing backslash joins lines as in bash."""
    blocks = []
    for match in re.finditer(r"^```bash\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL):
        line = text.count("\n", 0, match.start()) + 1
        joined = match.group(1).replace("\\\n", " ")
        blocks.append((line, [command for command in joined.splitlines() if command.strip()]))
    return blocks


def documented_blocks(names: tuple[str, ...] = COMMAND_DOCS) -> list[tuple[str, list[str]]]:
    """("file:line", commands) of every ```bash block of ``names`` (all of COMMAND_DOCS), in order."""
    return [
        (f"{name}:{line}", commands)
        for name in names
        for line, commands in readme_blocks((ROOT / name).read_text())
    ]


def test_readme_blocks_parse() -> None:
    """The reader sees the README's commands (a broken fence would silently test nothing)."""
    commands = [command for _, block in readme_blocks((ROOT / "README.md").read_text()) for command in block]
    assert commands[0].startswith("make repro") and commands[1].startswith("make test")
    assert any(command.startswith(".venv/bin/almanac check all") for command in commands)
    assert len(commands) >= 15
    everywhere = [command for _, block in documented_blocks() for command in block]
    assert any(command.startswith(".venv/bin/almanac score mirai") for command in everywhere)
    assert any(command.startswith("make ray-up") for command in everywhere)
    assert len(everywhere) >= 25
    # Every docs file that shows a bash command is in COMMAND_DOCS (or its commands would go untested).
    shown = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "docs").glob("*.md")
        if readme_blocks(path.read_text())
    }
    assert shown <= {*COMMAND_DOCS, *UNRUN_DOCS}, sorted(shown - {*COMMAND_DOCS, *UNRUN_DOCS})


def commit(project: Path, message: str) -> None:
    subprocess.run(["git", "add", "-A"], cwd=project, check=True, capture_output=True)
    subprocess.run(
        ["git", "commit", "-qm", message], cwd=project, check=True, capture_output=True, env=git_env()
    )


def git_env() -> dict[str, str]:
    identity = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org"}
    return {**os.environ, **identity, "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}


def before_param_change(project: Path) -> None:
    """Journey 2 says: edit params.yaml, rebuild, commit, compare. The edit is the user's part."""
    commit(project, "base")
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["relation_split"]["queries_per_month"] = 5
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))


def before_scoring(project: Path) -> None:
    """The user's predictions file: one JSON line per query, as the README describes it."""
    queries = pq.read_table(project / "data/mirai/queries/2025-05.parquet").column("query_id").to_pylist()
    lines = [json.dumps({"query_id": query_id, "prediction": {"04": ["042"]}}) for query_id in queries]
    (project / "preds.jsonl").write_text("\n".join(lines) + "\n")


def after_param_change(project: Path) -> None:
    """What the param change of journey 2 did, read from the `almanac diff --style mirai --split test --out
    out/diff.md` README's block just ran on the two commits it made (here rather than in a test of its own,
    which would rebuild the same change a second time; and on the block's own report, as an `almanac diff`
    on the sample is ~4 s of CPU)."""
    report = (project / "out/diff.md").read_text()
    assert "| params.yaml | relation_split.queries_per_month | 100 | 5 |" in report
    # 4 + 3 + 6 of the 28 queries go, none is added, and the 15 kept are the same records.
    assert "| mirai | default | test | 28 | 15 | 0 | 13 | 0 | 15 |" in report
    # One param change fits on one screen (issue 26: 932 lines before): hundreds of balance keys differ,
    # summarised per file; the summary's own change comes first among the largest.
    assert len(report.splitlines()) <= 60
    assert "| reports/mirai/all/summary.json | test | 28 | 15 | -13 |" in report
    almanac = str(project / ".venv/bin/almanac")
    every = run([almanac, "diff", "HEAD~1", "HEAD", "--style", "mirai", "--metrics", "all"], project)
    assert "| reports/mirai/2025-05/metrics.json | queries | 8 | 5 | -3 |" in every.stdout


# First command of a block -> what the user does before it (README says so in the prose around it).
PARAM_CHANGE = '.venv/bin/dvc repro && git commit -am "fewer relation queries"'
BEFORE: dict[str, Callable[[Path], None]] = {
    PARAM_CHANGE: before_param_change,
    ".venv/bin/almanac score mirai --queries data/mirai/queries/2025-05.parquet --predictions": before_scoring,
}
# First command of a block -> what the test checks right after the block (before a later block commits).
AFTER: dict[str, Callable[[Path], None]] = {PARAM_CHANGE: after_param_change}


def runnable(command: str) -> bool:
    return not any(command.startswith(prefix) for prefix in NOT_RUN)


# README's own blocks | the other docs' blocks: each list of files runs in order in its own copy of the build.
PARTS = {"readme": ("README.md",), "docs": tuple(name for name in COMMAND_DOCS if name != "README.md")}


def test_the_parts_run_every_documented_block_once() -> None:
    """Splitting the commands into two tests leaves none out and runs none twice."""
    assert sorted(name for names in PARTS.values() for name in names) == sorted(COMMAND_DOCS)
    assert "README.md" in PARTS["readme"]


# The longest tests on the build (README's param change reruns MIRAI): the order on the build follows the marks.
@pytest.mark.parametrize(
    "part",
    [
        pytest.param("readme", marks=pytest.mark.rebuilds(100)),
        pytest.param("docs", marks=pytest.mark.rebuilds(50)),
    ],
)
def test_every_readme_command_runs_as_written(part: str, sample_build: Path, tmp_path: Path) -> None:
    project = tmp_path / "clone"
    shutil.copytree(sample_build, project, symlinks=True)
    (project / ".venv").symlink_to(Path(sys.prefix))
    bare_env = {**env(), **git_env(), "PATH": os.defpath}  # no venv on PATH: `.venv/bin/...` must carry it
    ran = 0
    checked = set()
    if part == "docs":
        commit(project, "the built sample")  # a reader's clone has its history (README's part makes its own)
    for line, commands in documented_blocks(PARTS[part]):
        for first, prepare in BEFORE.items():
            if commands[0].startswith(first):
                prepare(project)
        script = [command if runnable(command) else f": not run: {command[:40]}" for command in commands]
        # Bare `dvc`/`almanac` blocks follow README's "source .venv/bin/activate" advice.
        if any(re.match(r"(dvc|almanac|python) ", command) for command in commands):
            script.insert(0, "source .venv/bin/activate")
        result = subprocess.run(
            ["bash", "-e", "-o", "pipefail", "-c", "\n".join(script)],
            cwd=project,
            env=bare_env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        assert result.returncode == 0, f"{line}: {commands}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
        ran += sum(map(runnable, commands))
        for first, check in AFTER.items():
            if commands[0].startswith(first):
                check(project)
                checked.add(first)
    if part == "readme":
        assert checked == set(AFTER), f"README no longer shows {sorted(set(AFTER) - checked)}"
        assert (project / "publish/openforesight-all/manifest.json").is_file()
        assert ran >= 15
    else:
        assert json.loads((project / "out" / "report.json").read_text())  # docs/mirai.md's score
        assert (project / "out/futurex-all/manifest.json").is_file()  # docs/publish.md's
        assert ran >= 10
