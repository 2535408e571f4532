"""Every DVC stage's deps cover the project code its stage runs, so editing any of it reruns the stage.

The import closure is computed statically with ``ast``, from ``sh stages/python -m stages.<name>`` in the stage's cmd:
``import a.b`` and ``from a.b import c`` (``c`` counts when it is a submodule) load ``a/__init__.py``,
``a/b/__init__.py`` and the module; imports inside functions count (the stage may call them), imports under
``if TYPE_CHECKING:`` do not (they never run). Package data read at import or run time is found where a module
names it beside itself — ``Path(__file__).with_name("x")``, ``Path(__file__).parent / "x"``,
``resources.files("pkg").joinpath("x")`` or ``resources.files("pkg") / "x"``, the name a string literal or a
module-level string constant — e.g. ``almanac/gdelt/flagged_words.txt`` and ``almanac/mirai/data/cameo.tsv``.
Not checked: files named by params or computed at run time, and ``importlib.import_module`` targets. Prompt
templates (``prompts/<task>.md``) are listed by hand: importing one task module registers its whole domain's
tasks, so the closure would name every prompt of the domain, not the ones the stage sends.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
import yaml

from tests.support.project import ROOT, dvc, make_project

PROJECT_PACKAGES = ("almanac", "stages")
# The two top-level package faces are imported by every stage. They hold a docstring (and ``__version__``)
# and no code, so listing them in every stage would only rerun the whole DAG on a version bump; instead
# test_top_level_package_faces_hold_no_code keeps them that way.
FACES = frozenset({"almanac/__init__.py", "stages/__init__.py"})
# The rule written at the top of dvc.yaml: packages listed file by file; every other package as its folder.
FILE_LISTED = frozenset({"almanac/gdelt", "almanac/reports"})
STAGE_CMD = re.compile(r"^sh stages/python -m (stages\.\w+)(?:\s|$)")
INTERPOLATION = re.compile(r"\$\{([^}]+)\}")


def module_file(module: str) -> Path | None:
    """The project file that ``module`` loads, or None for third-party and standard-library modules."""
    parts = module.split(".")
    if parts[0] not in PROJECT_PACKAGES:
        return None
    base = ROOT.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _with_parents(module: str) -> list[str]:
    """Importing ``a.b.c`` runs ``a``, ``a.b`` and ``a.b.c``."""
    parts = module.split(".")
    return [".".join(parts[: index + 1]) for index in range(len(parts))]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node except the bodies of ``if TYPE_CHECKING:``."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imports(tree: ast.AST, module: str, path: Path) -> set[str]:
    found: set[str] = set()
    for node in _runtime_nodes(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.update(_with_parents(alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = _package_of(module, path).split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            found.update(_with_parents(base))
            found.update(f"{base}.{alias.name}" for alias in node.names)  # submodules, if they are files
    return found


def _string_constants(tree: ast.Module) -> dict[str, str]:
    constants: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            constants.update({target.id: value.value for target in targets if isinstance(target, ast.Name)})
    return constants


def _string(node: ast.expr, constants: dict[str, str]) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name):
        return constants.get(node.id)
    return None


def _resources_package(node: ast.expr, constants: dict[str, str]) -> str | None:
    """``pkg`` of ``resources.files("pkg")`` / ``importlib.resources.files("pkg")``."""
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "files"
        and ast.unparse(node.func.value).endswith("resources")
        and node.args
    ):
        return _string(node.args[0], constants)
    return None


def _data_files(tree: ast.Module, path: Path) -> set[Path]:
    """Files a module names beside itself (see the module docstring for the forms recognised)."""
    constants = _string_constants(tree)
    here = {"Path(__file__).parent", "Path(__file__).resolve().parent"}
    found: set[Path] = set()
    for node in _runtime_nodes(tree):
        folder: Path | None = None
        name: str | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            receiver = node.func.value
            if node.func.attr == "with_name" and "__file__" in ast.unparse(receiver):
                folder, name = path.parent, _string(node.args[0], constants)
            elif node.func.attr == "joinpath" and (package := _resources_package(receiver, constants)):
                folder, name = ROOT.joinpath(*package.split(".")), _string(node.args[0], constants)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if ast.unparse(node.left) in here:
                folder, name = path.parent, _string(node.right, constants)
            elif package := _resources_package(node.left, constants):
                folder, name = ROOT.joinpath(*package.split(".")), _string(node.right, constants)
        if folder is not None and name is not None and (folder / name).is_file():
            found.add(folder / name)
    return found


@cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


@cache
def closure(module: str) -> frozenset[str]:
    """Project files (repo-relative, POSIX) that running ``python -m <module>`` imports or reads as data."""
    files: set[str] = set()
    queue = _with_parents(module)
    seen: set[str] = set()
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        path = module_file(name)
        if path is None:
            continue
        files.add(path.relative_to(ROOT).as_posix())
        tree = _parsed(path)
        queue.extend(_imports(tree, name, path) - seen)
        files.update(data.relative_to(ROOT).as_posix() for data in _data_files(tree, path))
    return frozenset(files)


def _lookup(params: dict[str, object], dotted: str) -> object:
    node: object = params
    for key in dotted.split("."):
        assert isinstance(node, dict), dotted
        node = node[key]
    return node


def _interpolate(text: str, params: dict[str, object], item: object | None) -> str:
    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        return str(item) if key == "item" else str(_lookup(params, key))

    return INTERPOLATION.sub(value, text)


def expanded_stages() -> dict[str, tuple[str, list[str]]]:
    """``{stage (name@item for foreach): (cmd, deps)}``, interpolated from params.yaml as DVC does."""
    params = yaml.safe_load((ROOT / "params.yaml").read_text(encoding="utf-8"))
    stages = yaml.safe_load((ROOT / "dvc.yaml").read_text(encoding="utf-8"))["stages"]
    expanded: dict[str, tuple[str, list[str]]] = {}
    for name, definition in stages.items():
        if "foreach" in definition:
            items = definition["foreach"]
            if isinstance(items, str):
                items = _lookup(params, INTERPOLATION.fullmatch(items.strip()).group(1))  # type: ignore[union-attr]
            body, keys = definition["do"], [(f"{name}@{item}", item) for item in items]
        else:
            body, keys = definition, [(name, None)]
        for key, item in keys:
            deps = [_interpolate(str(dep), params, item) for dep in body.get("deps", [])]
            expanded[key] = (_interpolate(body["cmd"], params, item), deps)
    return expanded


def _covered(path: str, deps: list[str]) -> bool:
    return any(path == dep or path.startswith(f"{dep}/") for dep in (dep.rstrip("/") for dep in deps))


def uncovered() -> dict[str, list[str]]:
    """Stage definition -> project files in its closure that no dep covers (foreach items share one entry)."""
    missing: dict[str, list[str]] = {}
    for stage, (cmd, deps) in expanded_stages().items():
        match = STAGE_CMD.match(cmd)
        assert match, f"{stage}: cmd is not `sh stages/python -m stages.<name> ...`: {cmd}"
        lost = sorted(path for path in closure(match.group(1)) - FACES if not _covered(path, deps))
        if lost:
            missing.setdefault(stage.partition("@")[0], lost)
    return missing


def test_closure_follows_submodules_parents_and_package_data() -> None:
    """The analysis itself: a known stage's closure holds what it must, and nothing from outside the project."""
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
    cameo = closure("almanac.mirai.cameo")
    assert "almanac/mirai/data/cameo.tsv" in cameo  # resources.files(...).joinpath(CONSTANT)
    assert "almanac/mirai/__init__.py" in cameo
    snippet = ast.parse(
        "if TYPE_CHECKING:\n    import almanac.llm\nelse:\n    from ..core.ids import x\nfrom . import io"
    )
    imported = _imports(snippet, "almanac.core.stage", ROOT / "almanac/core/stage.py")
    assert imported == {
        "almanac",
        "almanac.core",
        "almanac.core.ids",
        "almanac.core.ids.x",
        "almanac.core.io",
    }


def test_every_stage_module_exists_and_is_a_project_module() -> None:
    stages = expanded_stages()
    assert len(stages) > 33  # foreach expanded over the months
    for stage, (cmd, _deps) in stages.items():
        match = STAGE_CMD.match(cmd)
        assert match and module_file(match.group(1)) is not None, f"{stage}: {cmd}"


def test_every_stage_deps_cover_its_import_closure() -> None:
    missing = uncovered()
    report = "\n".join(f"{stage}: {', '.join(paths)}" for stage, paths in sorted(missing.items()))
    assert not missing, f"{len(missing)} stage definitions miss deps for code they run:\n{report}"


def test_every_code_dep_exists() -> None:
    """A module moved or renamed leaves a dep that DVC refuses (missing dependency): name it here first."""
    stale = sorted(
        {
            f"{stage.partition('@')[0]}: {dep}"
            for stage, (_cmd, deps) in expanded_stages().items()
            for dep in deps
            if dep.startswith(tuple(f"{package}/" for package in PROJECT_PACKAGES))
            and not (ROOT / dep).exists()
        }
    )
    assert not stale, "\n".join(stale)


def _package(path: str) -> str | None:
    """``almanac/<package>`` of a path inside one, else None."""
    parts = path.split("/")
    return "/".join(parts[:2]) if parts[0] == "almanac" and len(parts) > 2 else None


def test_code_deps_follow_the_rule() -> None:
    """Folder deps for packages, files only for FILE_LISTED ones: a file dep elsewhere misses moves."""
    broken: set[str] = set()
    for stage, (_cmd, deps) in expanded_stages().items():
        for dep in deps:
            package = _package(dep)
            if package is not None and package not in FILE_LISTED:
                broken.add(f"{stage.partition('@')[0]}: {dep} (list {package} instead)")
            elif dep in FILE_LISTED:
                broken.add(f"{stage.partition('@')[0]}: {dep} (list the files it uses instead)")
    assert not broken, "\n".join(sorted(broken))


def test_top_level_package_faces_hold_no_code() -> None:
    """FACES are left out of deps because they define nothing a stage runs: a docstring and constants only."""
    for face in FACES:
        for node in _parsed(ROOT / face).body:
            is_docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            is_constant = isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
            is_future = isinstance(node, ast.ImportFrom) and node.module == "__future__"
            assert is_docstring or is_constant or is_future, (
                f"{face} line {node.lineno}: code here runs in every stage; list {face} in every stage's deps"
            )


@pytest.mark.slow
def test_editing_a_transitively_imported_module_marks_the_stage_changed(tmp_path: Path) -> None:
    """wiki_ingest (no upstream stage: the cheapest to build) runs almanac/core/ids.py and
    almanac/ccnews/records.py only through other modules; an edit to either must mark it changed."""
    stage_file = ROOT / "stages/wiki_ingest.py"
    direct = {module_file(name) for name in _imports(_parsed(stage_file), "stages.wiki_ingest", stage_file)}
    edited = ("almanac/core/ids.py", "almanac/ccnews/records.py")
    for path in edited:
        assert path in closure("stages.wiki_ingest") and ROOT / path not in direct, path
    project = make_project(tmp_path / "project", ray__executor="serial")
    dvc(["repro", "wiki_ingest"], project)
    assert "Data and pipelines are up to date" in dvc(["status", "wiki_ingest"], project).stdout
    for path in edited:
        with (project / path).open("a", encoding="utf-8") as handle:
            handle.write("# an edit\n")
        status = dvc(["status", "wiki_ingest"], project).stdout
        assert "wiki_ingest:" in status and f"modified:           {path.rsplit('/', 1)[0]}" in status, status
        dvc(["commit", "--force", "wiki_ingest"], project)  # record the edit: the next one must show alone


if __name__ == "__main__":  # a report without pytest: `python -m tests.test_dvc_deps`
    for stage, paths in sorted(uncovered().items()):
        print(f"{stage}: {len(paths)} missing: {', '.join(paths)}")
