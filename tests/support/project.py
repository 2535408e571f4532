"""Copy the project's DAG, code and sample data into a scratch folder and run DVC or stages there."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

from almanac.core.month_lists import derived_lists, with_lists
from almanac.core.params import load_params

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
COPIED = (
    ".gitignore",  # what a clone ignores (e.g. untracked stage timings), so `git status` means the same
    "dvc.yaml",
    "params.yaml",
    ".dvcignore",
    ".gitignore",  # so a scratch project's git, like the repo's, leaves metrics/timings/ untracked
    "almanac",
    "stages",
    "prompts",
    "data/raw/sample",
    "data/ingest/README.md",
    "data/dedup/signatures/README.md",
)


def make_project(target: Path, **param_overrides: object) -> Path:
    """A fresh git + DVC project in ``target`` with the repo's DAG and sample data."""
    target.mkdir(parents=True, exist_ok=True)
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            # With the bytecode `make setup` compiled (copy2 keeps the mtimes it is checked against): where
            # PYTHONDONTWRITEBYTECODE is set (CI) a stage cannot cache it, and every stage process in every
            # scratch project compiled the almanac modules it imports again (0.1-1 s of CPU each). git and
            # DVC ignore __pycache__ (.gitignore, .dvcignore), and the code fingerprints read only sources.
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("*.pyc.*", "*.tmp"))
        elif source.exists():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    params = yaml.safe_load((target / "params.yaml").read_text())
    for dotted, value in param_overrides.items():
        node = params
        *parents, leaf = dotted.split("__")
        for key in parents:
            node = node[key]
        node[leaf] = value
    (target / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    render_lists(target)
    run(["git", "init", "-q"], target)
    dvc_init(target)
    # The plot templates dvc.yaml names live in .dvc/, which `dvc init` creates, so they come after it.
    shutil.copytree(ROOT / ".dvc" / "plots", target / ".dvc" / "plots")
    return target


DVC_CONFIG = """[core]
    site_cache_dir = .dvc/site_cache
    analytics = false
"""


def dvc_init(target: Path) -> None:
    """What `dvc init -q` then `dvc config core.site_cache_dir .dvc/site_cache` and `dvc config
    core.analytics false` leave, written directly: three DVC processes are ~4 s of CPU (most of it importing
    DVC), and every scratch project paid them. test_dvc_init_files_match_dvc_init compares the two."""
    (target / ".dvc" / "tmp").mkdir(parents=True)
    (target / ".dvc" / "config").write_text(DVC_CONFIG)
    # As in the repository: DVC's own bookkeeping (its site cache) is no file for git.
    shutil.copy2(ROOT / ".dvc" / ".gitignore", target / ".dvc" / ".gitignore")
    staged = [name for name in (".dvc/config", ".dvc/.gitignore", ".dvcignore") if (target / name).exists()]
    run(["git", "add", *staged], target)  # as `dvc init` stages them


def render_lists(target: Path) -> None:
    """The foreach lists that follow from the project's months into its dvc.yaml's vars, as `almanac dag`
    renders them: call after editing params.yaml's months."""
    rendered = (target / "dvc.yaml").read_text()
    (target / "dvc.yaml").write_text(with_lists(rendered, derived_lists(load_params(target / "params.yaml"))))


def env() -> dict[str, str]:
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "RAY_USAGE_STATS_ENABLED": "0",
        "DVC_NO_ANALYTICS": "1",
    }


def run(
    command: list[str], cwd: Path, check: bool = True, extra_env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command, cwd=cwd, env={**env(), **(extra_env or {})}, capture_output=True, text=True, timeout=900
    )
    if check and result.returncode != 0:
        raise AssertionError(f"{command} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
    return result


def dvc(args: list[str], cwd: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    return run([str(BIN / "dvc"), *args], cwd, check)


def output_digests(
    project: Path,
    patterns: tuple[str, ...] = (
        "data/ingest",
        "data/articles",
        "data/dedup",
        "data/foresight",
        "data/wiki",
        "data/wcep",
        "data/events",
        "data/gdelt",
        "data/mirai",
    ),
) -> dict[str, str]:
    """sha256 of every Parquet output, by relative path."""
    import hashlib

    digests = {}
    for pattern in patterns:
        for path in sorted((project / pattern).rglob("*.parquet")):
            digests[path.relative_to(project).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests
