"""Stage modules are one call: stages/<name>.py holds a docstring and calls the domain function its
declaration names, so the stage's code deps (its module's import closure) are that function's code and
the stage file, nothing more."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from almanac.pipeline.dag import STAGES
from almanac.pipeline.declare import Stage
from almanac.pipeline.imports import closure, module_file

ROOT = Path(__file__).resolve().parents[1]
NOT_STAGES = {"__init__.py", "run.py"}  # the package face and the launcher ``stages.run``
STAGE_FILES = sorted(path for path in (ROOT / "stages").glob("*.py") if path.name not in NOT_STAGES)


def _imported_names(tree: ast.Module) -> dict[str, str]:
    """``from a.b import c`` -> {"c": "a.b"} for the module's top-level imports."""
    return {
        alias.asname or alias.name: node.module
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module
        for alias in node.names
    }


def _the_call(tree: ast.Module) -> ast.Call:
    """The one call of a stage module: ``sys.exit(<function>(...))`` under ``if __name__ == "__main__":``."""
    body = [node for node in tree.body if not isinstance(node, ast.Import | ast.ImportFrom)]
    docstring, main = body
    assert isinstance(docstring, ast.Expr) and isinstance(docstring.value, ast.Constant)
    assert isinstance(main, ast.If) and ast.unparse(main.test) == "__name__ == '__main__'"
    (statement,) = main.body
    assert isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)
    assert ast.unparse(statement.value.func) == "sys.exit"
    (call,) = statement.value.args
    assert isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
    return call


def _declared(module: str) -> list[Stage]:
    return [stage for stage in STAGES if stage.module == module]


@pytest.mark.parametrize("path", STAGE_FILES, ids=lambda path: path.stem)
def test_a_stage_module_is_a_docstring_and_one_call_of_its_declared_function(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    call = _the_call(tree)
    imported = _imported_names(tree)
    stages = _declared(f"stages.{path.stem}")
    assert stages, f"{path.name} is run by no declared stage"
    for stage in stages:
        module, _, function = stage.function.partition(":")
        assert (call.func.id, imported.get(call.func.id)) == (function, module), stage.name


@pytest.mark.parametrize("stage", STAGES, ids=lambda stage: stage.name)
def test_every_declared_function_is_defined_where_the_declaration_says(stage: Stage) -> None:
    module, _, function = stage.function.partition(":")
    path = module_file(module)
    assert path is not None and path.is_relative_to(ROOT / "almanac"), stage.name
    defined = {
        node.name
        for node in ast.parse(path.read_text(encoding="utf-8")).body
        if isinstance(node, ast.FunctionDef)
    }
    assert function in defined, f"{stage.name}: {module} defines no {function}"


@pytest.mark.parametrize("path", STAGE_FILES, ids=lambda path: path.stem)
def test_a_stage_module_imports_sys_and_its_declared_functions_module_only(path: Path) -> None:
    """So the stage's closure (its code deps) is its file plus the code its function runs, nothing more. A
    report stage's function is shared by the styles, so it also imports its style's report builder."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    declared = {stage.function_module for stage in _declared(f"stages.{path.stem}")}
    builder = f"almanac.reports.{path.stem.removesuffix('_report')}" if path.stem.endswith("_report") else ""
    assert declared <= imported
    assert imported - declared - {"sys", "__future__"} <= {builder} - {""}


def test_a_stage_module_body_is_not_in_another_stage() -> None:
    """No stage runs another stage's body: a domain function's module is in the closure of the stages that
    declare it only (an edit to one stage's body reruns that stage alone)."""
    for stage in STAGES:
        own = module_file(stage.function_module)
        assert own is not None
        relative = own.relative_to(ROOT).as_posix()
        for other in STAGES:
            if other.function_module != stage.function_module:
                runs = frozenset().union(*(closure(module) for module in other.code_modules))
                if stage.function_module != "almanac.reports.stage":
                    assert relative not in runs, (other.name, relative)
