"""The import graph of the almanac package: no cycle between modules or between its packages, and
almanac/llm stays the client.

Every import counts (top-level, inside functions, under ``TYPE_CHECKING``, absolute and relative): a
cycle hidden in a function is still a cycle of understanding, and moving it to the top breaks imports.
The implicit import of a parent package's ``__init__`` is not an edge, or every package that hands on
its children's names would be a cycle.
"""

from __future__ import annotations

import ast
import copy
import functools
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import almanac

ROOT = Path(almanac.__file__).parent
# Module imports left out of the package graph until the change that removes them lands: each one
# named, with why. An entry no import needs any more fails the test, so the list only shrinks.
PACKAGE_CYCLE_EXCEPTIONS: set[str] = set()  # "almanac.a.module -> almanac.b.module",  # why, until when
# The packages of pipeline domains: the LLM client must not import any of them (tasks register instead).
DOMAINS = ("foresight", "events", "gdelt", "mirai", "wcep", "wiki", "ccnews", "reports", "check")


def module_names(root: Path, package: str) -> dict[str, Path]:
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        names[".".join((package, *parts))] = path
    return names


def imported(path: Path, module: str, modules: Mapping[str, Path]) -> Iterator[str]:
    """The modules of ``modules`` that ``path`` (module ``module``) imports, in any way."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in modules:
                    yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".")
                keep = len(parts) - node.level + (1 if is_package else 0)
                base = ".".join(parts[:keep] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            for alias in node.names:
                child = f"{base}.{alias.name}"
                if child in modules:
                    yield child  # from a.b import c, where c is a module
                elif base in modules:
                    yield base


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    modules = module_names(root, package)
    return {name: set(imported(path, name, modules)) - {name} for name, path in modules.items()}


@functools.cache
def _almanac_graph() -> dict[str, set[str]]:
    return import_graph(ROOT, "almanac")


def almanac_graph() -> dict[str, set[str]]:
    """The almanac package's graph, parsed once per process (~1.7 s of CPU; three tests read it), each
    caller getting its own copy."""
    return copy.deepcopy(_almanac_graph())


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for node in sorted(graph):
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return sorted(found)


def package_graph(
    graph: Mapping[str, set[str]], skipped: frozenset[tuple[str, str]] = frozenset()
) -> dict[str, set[str]]:
    """The module graph folded onto packages (``almanac.<pkg>``; a top-level module is its own node).

    Imports inside one package are not edges; ``skipped`` module edges are left out.
    """

    def package(module: str) -> str:
        return ".".join(module.split(".")[:2])

    folded: dict[str, set[str]] = {package(module): set() for module in graph}
    for module, targets in graph.items():
        for target in targets:
            if (module, target) not in skipped and package(target) != package(module):
                folded[package(module)].add(package(target))
    return folded


def test_the_almanac_packages_have_no_import_cycle() -> None:
    """Packages form layers: an import that runs back up ties every package on the way into one knot."""
    graph = almanac_graph()
    split = [edge.partition(" -> ") for edge in PACKAGE_CYCLE_EXCEPTIONS]
    skipped = frozenset((module, target) for module, _arrow, target in split)
    stale = {f"{module} -> {target}" for module, target in skipped if target not in graph.get(module, set())}
    assert not stale, f"no longer imported, delete from PACKAGE_CYCLE_EXCEPTIONS: {sorted(stale)}"
    packages = package_graph(graph, skipped)
    assert {"almanac.core", "almanac.reports", "almanac.check", "almanac.cli"} <= set(packages)
    assert "almanac.core" in packages["almanac.reports"]
    found = cycles(packages)
    back_edges = sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        for target in targets
        if (module, target) not in skipped
        for component in found
        if ".".join(module.split(".")[:2]) in component
        and ".".join(target.split(".")[:2]) in component
        and ".".join(module.split(".")[:2]) != ".".join(target.split(".")[:2])
    )
    assert found == [], f"package cycles {found}; the imports between their packages:\n" + "\n".join(
        back_edges
    )


def test_the_package_graph_sees_a_cycle_no_module_cycle_shows(tmp_path: Path) -> None:
    """low.x -> high.y and high.z -> low.w: four modules, no module cycle, one package cycle."""
    for folder, files in {
        "low": {"x": "from pkg.high import y\n", "w": ""},
        "high": {"y": "", "z": "import pkg.low.w\n"},
    }.items():
        (tmp_path / "pkg" / folder).mkdir(parents=True)
        (tmp_path / "pkg" / folder / "__init__.py").write_text("")
        for name, text in files.items():
            (tmp_path / "pkg" / folder / f"{name}.py").write_text(text)
    (tmp_path / "pkg" / "__init__.py").write_text("")
    graph = import_graph(tmp_path / "pkg", "pkg")
    assert cycles(graph) == []
    assert cycles(package_graph(graph)) == [["pkg.high", "pkg.low"]]
    # Skipping the one upward import (a named exception) leaves the layers.
    assert cycles(package_graph(graph, frozenset({("pkg.low.x", "pkg.high.y")}))) == []


def test_the_almanac_package_has_no_import_cycle() -> None:
    graph = almanac_graph()
    assert len(graph) > 100 and "almanac.llm.client" in graph["almanac.llm.tasks"]
    assert cycles(graph) == []


def test_the_llm_client_imports_no_domain_package() -> None:
    graph = almanac_graph()
    for domain in DOMAINS:
        assert f"almanac.{domain}" in graph, f"almanac.{domain} is gone: update DOMAINS"
    llm = {name: targets for name, targets in graph.items() if name.split(".")[:2] == ["almanac", "llm"]}
    assert "almanac.llm.registry" in llm
    wrong = {
        f"{name} -> {target}"
        for name, targets in llm.items()
        for target in targets
        if target.split(".")[1] in DOMAINS
    }
    assert wrong == set()
    # Only the shared core besides itself: anything else would be a domain this list forgot.
    assert {target.split(".")[1] for targets in llm.values() for target in targets} <= {"core", "llm"}


def test_importing_the_client_registers_no_task() -> None:
    """Tasks come from their domains: the client alone (in a fresh interpreter) knows none."""
    code = (
        "import almanac.llm, almanac.llm.client, almanac.llm.offline\n"
        "from almanac.llm.registry import registered\n"
        "import sys\n"
        "assert registered() == {}, sorted(registered())\n"
        "assert not [m for m in sys.modules if m.startswith(('almanac.foresight', 'almanac.events'))]\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_the_cycle_finder_sees_cycles_hidden_in_functions_and_relative_imports(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from pkg.a import A\n")
    (package / "a.py").write_text("from .sub import b\nA = 1\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "b.py").write_text("def late():\n    from ..a import A\n    return A\n")
    (package / "c.py").write_text("import pkg.sub.b\n")
    graph = import_graph(package, "pkg")
    assert (
        graph["pkg.a"] == {"pkg.sub.b"}
        and graph["pkg.sub.b"] == {"pkg.a"}
        and graph["pkg.c"] == {"pkg.sub.b"}
    )
    assert graph["pkg"] == {
        "pkg.a"
    }  # the package's own import of a child; the child's import of pkg is implicit
    assert cycles(graph) == [["pkg.a", "pkg.sub.b"]]
    (package / "sub" / "b.py").write_text("def late():\n    return 1\n")
    assert cycles(import_graph(package, "pkg")) == []
