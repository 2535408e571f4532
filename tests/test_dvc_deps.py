"""dvc.yaml is the rendering of the stage declarations (almanac/pipeline/), and its deps are exact.

The committed file must be what ``almanac dag`` renders (CI catches a declaration or import edit without a
re-render). The dep probes work on the rendered dep lists: which expanded stages (one per foreach item) list a
file is which stages DVC marks changed when that file is edited. Expected sets are worked out from the code:
``almanac/core/ray_cli.py`` and ``almanac/foresight/release_import.py`` are CLI-only modules no stage imports;
``almanac/foresight/dates.py`` is run by the date step only; ``prompts/repair.md`` is sent by the repair round
of every stage that sends a task (issue 25 names foresight_dates, futuresim_repair, futuresim_answerability);
a prompt sent from the CLI only (scorer, replay) is listed by no stage.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from almanac.pipeline.dag import STAGES
from almanac.pipeline.declare import Stage
from almanac.pipeline.imports import FACES, PROJECT_PACKAGES, ROOT, closure, imports, parsed
from almanac.pipeline.render import deps, render_project
from tests.support.project import dvc, make_project

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
    """The expanded stages an edit of ``path`` marks changed: those listing it as a dep."""
    return {name for name, stage in expanded().items() if path in deps(stage)}


def test_the_committed_dvc_yaml_is_the_rendering() -> None:
    committed = (ROOT / "dvc.yaml").read_text(encoding="utf-8")
    assert committed == render_project(), "dvc.yaml is stale: run `almanac dag` (make dag) and commit it"


def test_a_module_no_stage_imports_changes_no_stage() -> None:
    for path in ("almanac/core/ray_cli.py", "almanac/foresight/release_import.py", "almanac/cli.py"):
        assert (ROOT / path).is_file(), path
        assert changed_by(path) == set(), path


def test_an_imported_module_changes_exactly_the_stages_that_run_it() -> None:
    months = PARAMS["months"]
    assert changed_by("almanac/foresight/dates.py") == {f"foresight_dates@{month}" for month in months}
    assert changed_by("almanac/gdelt/download.py") == {f"gdelt_download@{month}" for month in months}
    # core/io.py: every stage writes through it (core.layout.paths imports it), so every stage reruns.
    assert changed_by("almanac/core/io.py") == set(expanded())
    # The Markdown helpers: the statistics, funnel and report stages only.
    report_stages = {name.partition("@")[0] for name in changed_by("almanac/core/markdown.py")}
    assert report_stages == {
        "corpus_stats", "event_stats", "gdelt_stats", "foresight_funnel", "futuresim_funnel",
        "openforesight_report", "openforecast_report", "mirai_report", "series_report",
    }  # fmt: skip


def test_every_sender_of_a_prompt_lists_it() -> None:
    repair = {name.partition("@")[0] for name in changed_by("prompts/repair.md")}
    assert {"foresight_dates", "futuresim_repair", "futuresim_answerability"} <= repair
    assert repair == {stage.name for stage in STAGES if stage.tasks}
    assert {n.partition("@")[0] for n in changed_by("prompts/futuresim_answer.md")} == {
        "futuresim_repair",
        "futuresim_answerability",
    }
    assert {n.partition("@")[0] for n in changed_by("prompts/date_repair.md")} == {"foresight_dates"}
    # Sent from the CLI only: the FutureX scorer's judge (`almanac score futurex`) and the replay's baseline
    # forecaster (`almanac simulate`).
    cli_only = {"futurex_answer_judge.md", "futuresim_forecast.md"}
    for prompt in sorted((ROOT / "prompts").glob("*.md")):
        senders = changed_by(f"prompts/{prompt.name}")
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


def test_no_package_folder_is_a_dep() -> None:
    for stage in STAGES:
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


@pytest.mark.parametrize("module", ["stages.foresight_dates", "stages.check", "stages.mirai_report"])
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


@pytest.mark.slow
def test_dvc_status_marks_exactly_the_importers_changed(tmp_path: Path) -> None:
    """One real probe: wiki_ingest built, an edit to a module it does not run leaves it up to date, an edit
    to one it runs only through other modules (core/ids.py) marks it changed."""
    assert "almanac/core/ray_cli.py" not in closure("stages.wiki_ingest")
    assert "almanac/core/ids.py" in closure("stages.wiki_ingest")
    project = make_project(tmp_path / "project", ray__executor="serial")
    dvc(["repro", "wiki_ingest"], project)
    assert "Data and pipelines are up to date" in dvc(["status", "wiki_ingest"], project).stdout
    with (project / "almanac/core/ray_cli.py").open("a", encoding="utf-8") as handle:
        handle.write("# an edit\n")
    assert "Data and pipelines are up to date" in dvc(["status", "wiki_ingest"], project).stdout
    with (project / "almanac/core/ids.py").open("a", encoding="utf-8") as handle:
        handle.write("# an edit\n")
    status = dvc(["status", "wiki_ingest"], project).stdout
    assert "wiki_ingest:" in status and "modified:           almanac/core/ids.py" in status, status
