"""dvc.yaml is the rendering of the stage declarations (almanac/pipeline/), and its deps are exact.

The committed file must be what ``almanac dag`` renders (CI catches a declaration or import edit without a
re-render). A stage's code files (import closure and prompts) are hashed by the first stage, ``code_hashes``,
into the stage's fingerprint, its one code dep. ``code_hashes`` deps on the folders holding them (almanac/,
prompts/, stages/), so any edit there runs it first; after that run the stages DVC marks changed are those
whose fingerprint lists the file, one per foreach item (an edit to a file no stage runs: none). Expected sets are worked out from the code:
``almanac/core/ray_cli.py`` and ``almanac/foresight/release_import.py`` are CLI-only modules no stage imports;
``almanac/foresight/dates.py`` is run by the date step only; ``prompts/repair.md`` is sent by the repair round
of every stage that sends a task (issue 25 names foresight_dates, futuresim_repair, futuresim_answerability);
a prompt sent from the CLI only (scorer, replay) is listed by no stage.
"""

from __future__ import annotations

import ast
import contextlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from almanac.pipeline.code_stage import CODE_HASHES, PARAMS_COPY, fingerprint_path
from almanac.pipeline.dag import STAGES
from almanac.pipeline.declare import Stage
from almanac.pipeline.fingerprints import fingerprint, params_json, write_fingerprints, write_params_copy
from almanac.pipeline.imports import FACES, PROJECT_PACKAGES, ROOT, closure, imports, parsed
from almanac.pipeline.render import code_files, code_roots, deps, hashed_files, render_project
from tests.support.make_repro import repro

# params.yaml and the foreach lists that follow from its months (dvc.yaml's vars)
PARAMS = {
    **yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8")),
    **yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["vars"][0],
}


def expanded() -> dict[str, Stage]:
    """``{name or name@item: declaration}`` for every stage DVC runs, foreach lists read from params.yaml."""
    found: dict[str, Stage] = {}
    for stage in STAGES:
        items = PARAMS[stage.foreach] if stage.foreach else [None]
        found.update({(f"{stage.name}@{item}" if item else stage.name): stage for item in items})
    return found


def changed_by(path: str) -> set[str]:
    """The expanded stages an edit of ``path`` marks changed once ``code_hashes`` has run: those whose
    fingerprint lists it, and ``code_hashes`` itself when the file is under one of its dep folders."""
    found = {name for name, stage in expanded().items() if path in code_files(stage)}
    under = any(Path(path).is_relative_to(dep) for dep in deps(STAGES[0]))
    return found | ({CODE_HASHES} if under else set())


def rerun_by(path: str) -> set[str]:
    """What a repro after editing ``path`` reruns: ``code_hashes`` (if the file is its dep) and the stages
    whose fingerprint then changes."""
    return changed_by(path) - {CODE_HASHES}


def test_the_committed_dvc_yaml_is_the_rendering() -> None:
    committed = (ROOT / "dvc.yaml").read_text(encoding="utf-8")
    assert committed == render_project(), "dvc.yaml is stale: run `almanac dag` (make dag) and commit it"


def test_a_module_no_stage_imports_changes_no_stage() -> None:
    for path in ("almanac/core/ray_cli.py", "almanac/foresight/release_import.py", "almanac/cli.py"):
        assert (ROOT / path).is_file(), path
        # code_hashes reruns (its dep folder changed) and rewrites no fingerprint: nothing else reruns
        assert changed_by(path) == {CODE_HASHES}, path
        assert rerun_by(path) == set(), path


def test_code_files_are_deps_of_code_hashes_only_through_their_folders() -> None:
    first, rest = STAGES[0], STAGES[1:]
    assert first.name == CODE_HASHES
    # a handful of deps, not ~400 files: DVC's per-stage lock compares each dep with each other
    assert deps(first) == ["almanac", "prompts", "stages", "params.yaml"]
    hashed = hashed_files(STAGES)
    assert set(hashed) == set().union(*(code_files(stage) for stage in STAGES))
    assert all(Path(path).parts[0] in deps(first) for path in hashed)
    assert code_roots(["a/b/c.py", "a/d.py", "top.py", "e/f.md"]) == ["a", "e", "top.py"]
    code = tuple(f"{package}/" for package in (*PROJECT_PACKAGES, "prompts"))
    for stage in rest:
        own = deps(stage)
        assert own[0] == fingerprint_path(stage.name).as_posix(), stage.name
        assert not [dep for dep in own if dep.startswith(code)], stage.name
    # the deps the sample's DVC checks: each stage's ~45 code files became one fingerprint
    per_stage = sum(len(code_files(stage)) for stage in rest)
    assert len(deps(first)) + len(rest) < per_stage / 20


def _fingerprint_project(tmp_path: Path) -> tuple[Path, tuple[Stage, ...]]:
    """Two stage modules sharing a helper, a module neither imports, a prompt one of them sends."""
    for folder in ("stages", "almanac/tool", "prompts"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "almanac/tool/__init__.py").write_text("")
    (tmp_path / "almanac/tool/shared.py").write_text("X = 1\n")
    (tmp_path / "almanac/tool/alone.py").write_text("")
    (tmp_path / "almanac/tool/unused.py").write_text("")
    (tmp_path / "stages/a.py").write_text("from almanac.tool import shared\n")
    (tmp_path / "stages/b.py").write_text("from almanac.tool import shared, alone\n")
    (tmp_path / "prompts/ask.md").write_text("ask\n")
    (tmp_path / "prompts/repair.md").write_text("repair\n")
    stages = (
        Stage(name="a", module="stages.a", writes=(Path("data/a"),)),
        Stage(name="b", module="stages.b", tasks=("ask",), writes=(Path("data/b"),)),
    )
    return tmp_path, stages


def test_a_fingerprint_changes_exactly_when_one_of_its_files_does(tmp_path: Path) -> None:
    root, stages = _fingerprint_project(tmp_path)
    assert write_fingerprints(stages, root) == ["a", "b"]
    listed = (root / "data/code/b.sha256").read_text().splitlines()
    # sha256sum's format, one line per code file: the closure sorted, then the prompts
    assert [line.split("  ")[1] for line in listed] == [
        "almanac/tool/__init__.py",
        "almanac/tool/alone.py",
        "almanac/tool/shared.py",
        "stages/b.py",
        "prompts/ask.md",
        "prompts/repair.md",
    ]
    # sha256 of "repair\n", from `printf 'repair\n' | sha256sum`
    assert listed[-1] == "0f15edc88ae50f41d95d698a8be425f8095d15ba461681b898caffcfe2cda2da  prompts/repair.md"
    stamp = (root / "data/code/a.sha256").stat().st_mtime_ns
    assert write_fingerprints(stages, root) == []  # nothing changed: nothing rewritten
    (root / "almanac/tool/unused.py").write_text("# a comment\n")
    assert write_fingerprints(stages, root) == []
    (root / "almanac/tool/alone.py").write_text("# a comment\n")
    assert write_fingerprints(stages, root) == ["b"]
    (root / "prompts/ask.md").write_text("ask, in other words\n")
    assert write_fingerprints(stages, root) == ["b"]
    (root / "almanac/tool/shared.py").write_text("X = 2\n")
    assert write_fingerprints(stages, root) == ["a", "b"]
    assert (root / "data/code/a.sha256").stat().st_mtime_ns != stamp
    assert fingerprint(stages[0], root) == (root / "data/code/a.sha256").read_text()


def test_the_params_copy_is_params_yaml_as_sorted_json_rewritten_only_on_change(tmp_path: Path) -> None:
    assert params_json("b: 1\na: {y: [1, x], x: 0.5}\n") == (
        '{\n "a": {\n  "x": 0.5,\n  "y": [\n   1,\n   "x"\n  ]\n },\n "b": 1\n}\n'
    )
    # order and comments are not values: the same text
    assert params_json("# a note\na: {x: 0.5, y: [1, x]}\nb: 1\n") == params_json(
        "b: 1\na: {y: [1, x], x: 0.5}"
    )
    with pytest.raises(ValueError, match="2025-03-01"):
        params_json("cutoff: 2025-03-01\n")  # a YAML date has no JSON form: refused, not stringified
    (tmp_path / "params.yaml").write_text("a: 1\n")
    assert write_params_copy(tmp_path)
    stamp = (tmp_path / PARAMS_COPY).stat().st_mtime_ns
    (tmp_path / "params.yaml").write_text("# a comment only\na: 1\n")
    assert not write_params_copy(tmp_path)
    assert (tmp_path / PARAMS_COPY).stat().st_mtime_ns == stamp
    (tmp_path / "params.yaml").write_text("a: 2\n")
    assert write_params_copy(tmp_path)
    assert json.loads((tmp_path / PARAMS_COPY).read_text()) == {"a": 2}


def test_the_committed_params_copy_is_params_yaml() -> None:
    """Tracked in git (`dvc params diff` reads it at any revision): stale after a params.yaml edit until
    `almanac dag` or `make repro` (code_hashes) rewrites it."""
    committed = (ROOT / PARAMS_COPY).read_text(encoding="utf-8")
    assert committed == params_json((ROOT / "params.yaml").read_text(encoding="utf-8")), (
        f"{PARAMS_COPY} is stale: run `almanac dag` (or make repro) and commit it"
    )


def test_every_stage_names_the_params_copy_and_keys_that_exist() -> None:
    rendered = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    copy = json.loads(params_json((ROOT / "params.yaml").read_text(encoding="utf-8")))
    for stage in STAGES[1:]:
        body = rendered[stage.name].get("do", rendered[stage.name])
        if not stage.params:
            assert "params" not in body, stage.name
            continue
        assert body["params"] == [{PARAMS_COPY.as_posix(): list(stage.params)}], stage.name
        for key in stage.params:  # a key DVC would not find is a dep on nothing
            value = copy
            for part in key.split("."):
                value = value[part]


def test_an_imported_module_changes_exactly_the_stages_that_run_it() -> None:
    months = PARAMS["months"]
    assert rerun_by("almanac/foresight/dates.py") == {f"foresight_month@{month}" for month in months}
    assert rerun_by("almanac/gdelt/download.py") == {f"gdelt_month@{month}" for month in months}
    assert CODE_HASHES in changed_by("almanac/gdelt/download.py")  # which runs first and rewrites one file
    # core/io.py: every stage writes through it (core.layout.paths imports it), so every stage reruns.
    assert changed_by("almanac/core/io.py") == set(expanded())
    assert rerun_by("almanac/core/io.py") == set(expanded()) - {CODE_HASHES}
    # The Markdown helpers: the statistics, funnel and report stages only.
    report_stages = {name.partition("@")[0] for name in rerun_by("almanac/core/markdown.py")}
    assert report_stages == {
        "corpus_stats", "futuresim_funnel",
        "openforesight_stats_report", "openforecast_stats_report", "mirai_stats_report", "series_report",
    }  # fmt: skip


def test_every_sender_of_a_prompt_lists_it() -> None:
    repair = {name.partition("@")[0] for name in rerun_by("prompts/repair.md")}
    assert {"foresight_month", "futuresim_repair", "futuresim_answerability"} <= repair
    assert repair == {stage.name for stage in STAGES if stage.tasks}
    assert {n.partition("@")[0] for n in rerun_by("prompts/futuresim_answer.md")} == {
        "futuresim_repair",
        "futuresim_answerability",
    }
    assert {n.partition("@")[0] for n in rerun_by("prompts/date_repair.md")} == {"foresight_month"}
    # Sent from the CLI only: the FutureX scorer's judge (`almanac score futurex`) and the replay's baseline
    # forecaster (`almanac simulate`).
    cli_only = {"futurex_answer_judge.md", "futuresim_forecast.md"}
    for prompt in sorted((ROOT / "prompts").glob("*.md")):
        senders = rerun_by(f"prompts/{prompt.name}")
        assert CODE_HASHES in changed_by(f"prompts/{prompt.name}"), prompt.name  # prompts/ is its dep
        assert bool(senders) != (prompt.name in cli_only), prompt.name


def test_every_declared_task_is_registered_by_the_stages_own_code() -> None:
    """A task is declared where the stage's closure defines it: ``register(Task("<name>", ...`` there."""
    for stage in STAGES:
        defined: set[str] = set()
        for path in frozenset().union(*(closure(module) for module in stage.code_modules)):
            if path.endswith(".py"):
                for node in ast.walk(parsed(ROOT / path)):
                    if isinstance(node, ast.Call) and ast.unparse(node.func) == "Task" and node.args:
                        first = node.args[0]
                        if isinstance(first, ast.Constant) and isinstance(first.value, str):
                            defined.add(first.value)
        assert set(stage.tasks) <= defined, (stage.name, set(stage.tasks) - defined)


def test_no_package_folder_is_a_dep_but_of_code_hashes() -> None:
    for stage in STAGES[1:]:
        for dep in deps(stage):
            if dep.startswith(tuple(f"{package}/" for package in PROJECT_PACKAGES)):
                assert (ROOT / dep).is_file(), f"{stage.name}: {dep} is not a file"


def test_closure_follows_submodules_parents_and_package_data() -> None:
    files = closure("stages.gdelt_articles")
    assert {
        "stages/gdelt_articles.py",
        "almanac/core/__init__.py",  # a package on the path of `from almanac.core.io import ...`
        "almanac/core/io.py",
        "almanac/gdelt/__init__.py",
        "almanac/gdelt/articles.py",
        "almanac/gdelt/flagged_words.txt",  # Path(__file__).with_name(...)
    } <= files
    assert all(path.startswith(PROJECT_PACKAGES) for path in files)
    assert "almanac/mirai/data/cameo.tsv" in closure("almanac.mirai.cameo")  # resources.files(...).joinpath
    snippet = ast.parse(
        "if TYPE_CHECKING:\n    import almanac.llm\nelse:\n    from ..core.ids import x\nfrom . import io"
    )
    found = imports(snippet, "almanac.core.stage", ROOT / "almanac/core/stage.py")
    assert found == {"almanac", "almanac.core", "almanac.core.ids", "almanac.core.ids.x", "almanac.core.io"}


def test_top_level_package_faces_hold_no_code() -> None:
    """FACES are left out of deps because they define nothing a stage runs: a docstring and constants only."""
    for face in FACES:
        for node in parsed(ROOT / face).body:
            is_docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            is_constant = isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
            assert is_docstring or is_constant or is_future, f"{face} line {node.lineno} runs in every stage"


LOADED = """
import json, pathlib, sys
import {module}
root = pathlib.Path.cwd().resolve()
files = []
for loaded in list(sys.modules.values()):
    path = getattr(loaded, "__file__", None)
    if path and pathlib.Path(path).resolve().is_relative_to(root):
        files.append(pathlib.Path(path).resolve().relative_to(root).as_posix())
print(json.dumps(files))
"""


@pytest.mark.parametrize("module", ["stages.foresight_month", "stages.check", "stages.mirai_stats_report"])
def test_the_static_closure_holds_every_module_the_stage_loads(module: str) -> None:
    """Checked against a real interpreter: what importing the stage loads is inside its static closure."""
    loaded = subprocess.run(
        [sys.executable, "-c", LOADED.format(module=module)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    project = {path for path in json.loads(loaded.stdout) if path.startswith(PROJECT_PACKAGES)}
    assert project - FACES <= closure(module)


def _status(project: Path, target: str, with_deps: bool = False) -> dict[str, object]:
    """What `dvc status [--with-deps] TARGET` reports, from DVC's own API in this process: ~0.4 s of CPU
    where a `dvc status` process is ~2.2 s (most of it importing DVC and its command line)."""
    from dvc.repo import Repo

    with contextlib.chdir(project), Repo(".") as repo:  # DVC resolves its outputs from the working directory
        found: dict[str, object] = repo.status(targets=[target], with_deps=with_deps)
    return found


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # DVC's in this process (pygtrie's _NoneStep)
def test_dvc_status_marks_exactly_the_importers_changed(sample_build: Path, tmp_path: Path) -> None:
    """One real probe on a copy of the built sample (wiki_ingest and code_hashes, its upstream, built). An
    edit to a module no stage runs, or to a prompt wiki_ingest does not send, reruns code_hashes only
    (wiki_ingest's fingerprint is the same); an edit to one it runs only through other modules
    (core/ids.py) marks code_hashes changed, and once it ran, wiki_ingest through its fingerprint."""
    assert "almanac/core/ray_cli.py" not in closure("stages.wiki_ingest")
    assert "almanac/core/ids.py" in closure("stages.wiki_ingest")
    project = tmp_path / "project"
    shutil.copytree(sample_build, project, symlinks=True)
    assert _status(project, "wiki_ingest") == {}  # built: nothing to do

    def edit(path: str) -> None:
        with (project / path).open("a", encoding="utf-8") as handle:
            handle.write("\n# an edit\n")

    # Both edits in one round (a `dvc repro` is ~3-4 s of CPU): wiki_ingest's fingerprint hashes its own
    # files only, so if it is unchanged after both edits, it is after each.
    edit("almanac/core/ray_cli.py")
    edit("prompts/repair.md")
    changed_folders = {CODE_HASHES: [{"changed deps": {"almanac": "modified", "prompts": "modified"}}]}
    assert _status(project, CODE_HASHES) == changed_folders
    ran = repro(["wiki_ingest"], project)[0]  # as `make repro ARGS=wiki_ingest` runs DVC
    assert CODE_HASHES in ran and "wiki_ingest" not in ran, ran
    edit("almanac/core/ids.py")
    assert _status(project, "wiki_ingest") == {}  # not yet: its fingerprint is rewritten by code_hashes
    changed_almanac = {CODE_HASHES: [{"changed deps": {"almanac": "modified"}}]}
    assert _status(project, "wiki_ingest", with_deps=True) == changed_almanac
    assert repro([CODE_HASHES], project)[0] == [CODE_HASHES]
    changed_fingerprint = {"wiki_ingest": [{"changed deps": {"data/code/wiki_ingest.sha256": "modified"}}]}
    assert _status(project, "wiki_ingest") == changed_fingerprint
