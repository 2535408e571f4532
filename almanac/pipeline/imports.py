"""The project files a stage module runs: its import closure, walked statically with ``ast``.

``import a.b`` and ``from a.b import c`` (``c`` counts when it is a submodule) load ``a/__init__.py``,
``a/b/__init__.py`` and the module; imports inside functions count (lazy imports still run when the stage
calls them), imports under ``if TYPE_CHECKING:`` do not (they never run). Package data is found where a module
names it beside itself — ``Path(__file__).with_name("x")``, ``Path(__file__).parent / "x"``,
``resources.files("pkg").joinpath("x")`` or ``resources.files("pkg") / "x"``, the name a string literal or a
module-level string constant. Only files of this repository count: third-party and standard-library modules
are DVC's business no more than the interpreter is. Not found: files named by params, and
``importlib.import_module`` targets (no stage uses one).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[2]
PROJECT_PACKAGES: Final = ("almanac", "stages")
# The two top-level package faces are imported by every stage. They hold a docstring (and ``__version__``)
# and no code (a test keeps them so), so listing them would only rerun the whole DAG on a version bump.
FACES: Final = frozenset({"almanac/__init__.py", "stages/__init__.py"})


def module_file(module: str, root: Path = ROOT) -> Path | None:
    """The project file that ``module`` loads, or None for third-party and standard-library modules."""
    parts = module.split(".")
    if parts[0] not in PROJECT_PACKAGES:
        return None
    base = root.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def with_parents(module: str) -> list[str]:
    """Importing ``a.b.c`` runs ``a``, ``a.b`` and ``a.b.c``."""
    parts = module.split(".")
    return [".".join(parts[: index + 1]) for index in range(len(parts))]


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


# Where an import statement can sit: in a statement list of a statement, a handler or a match case, never
# inside an expression. With ``statements_only`` the walk enters only these (an eighth of a module's nodes).
_STATEMENT_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _runtime_nodes(tree: ast.AST, statements_only: bool = False) -> Iterator[ast.AST]:
    """Every node except the bodies of ``if TYPE_CHECKING:``; with ``statements_only``, only the statements
    (every import the full walk would find), without walking into expressions."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        children = ast.iter_child_nodes(node)
        if statements_only:
            children = (child for child in children if isinstance(child, _STATEMENT_HOLDERS))
        stack.extend(children)


def _names_data_files(source: str) -> bool:
    """Whether a module's text can hold a form ``data_files`` recognises (each names ``__file__`` or
    ``resources``): the other modules' expressions need no walk."""
    return "__file__" in source or "resources" in source


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def imports(tree: ast.AST, module: str, path: Path, nodes: list[ast.AST] | None = None) -> set[str]:
    """The modules (and names that may be submodules) that running ``tree`` can import (``nodes``: its
    runtime nodes, when already walked)."""
    found: set[str] = set()
    for node in _runtime_nodes(tree) if nodes is None else nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                found.update(with_parents(alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = _package_of(module, path).split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            found.update(with_parents(base))
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


def data_files(
    tree: ast.Module, path: Path, root: Path = ROOT, nodes: list[ast.AST] | None = None
) -> set[Path]:
    """Files a module names beside itself (see the module docstring for the forms recognised)."""
    constants = _string_constants(tree)
    here = {"Path(__file__).parent", "Path(__file__).resolve().parent"}
    found: set[Path] = set()
    for node in _runtime_nodes(tree) if nodes is None else nodes:
        folder: Path | None = None
        name: str | None = None
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args:
            receiver = node.func.value
            if node.func.attr == "with_name" and "__file__" in ast.unparse(receiver):
                folder, name = path.parent, _string(node.args[0], constants)
            elif node.func.attr == "joinpath" and (package := _resources_package(receiver, constants)):
                folder, name = root.joinpath(*package.split(".")), _string(node.args[0], constants)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            if ast.unparse(node.left) in here:
                folder, name = path.parent, _string(node.right, constants)
            elif package := _resources_package(node.left, constants):
                folder, name = root.joinpath(*package.split(".")), _string(node.right, constants)
        if folder is not None and name is not None and (folder / name).is_file():
            found.add(folder / name)
    return found


@cache
def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


@cache
def _edges(name: str, path: Path, root: Path) -> tuple[frozenset[str], frozenset[str]]:
    """What module ``name`` (file ``path``) imports and the data files it names (repo-relative): walked once
    per file, however many closures hold it."""
    tree = parsed(path)
    if _names_data_files(path.read_text(encoding="utf-8")):
        nodes = list(_runtime_nodes(tree))
        found = data_files(tree, path, root, nodes)
    else:
        nodes, found = list(_runtime_nodes(tree, statements_only=True)), set()
    imported = imports(tree, name, path, nodes)
    return frozenset(imported), frozenset(data.relative_to(root).as_posix() for data in found)


# Per (module, root), like the closures themselves (cached below): the closures of a run share most modules.
_known_module_file = cache(module_file)


@cache
def closure(module: str, root: Path = ROOT) -> frozenset[str]:
    """Project files (repo-relative, POSIX) that ``python -m <module>`` imports or reads as package data,
    the two FACES left out."""
    files: set[str] = set()
    queue = with_parents(module)
    seen: set[str] = set()
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen.add(name)
        path = _known_module_file(name, root)
        if path is None:
            continue
        files.add(path.relative_to(root).as_posix())
        imported, data = _edges(name, path, root)
        queue.extend(imported - seen)
        files.update(data)
    return frozenset(files - FACES)
