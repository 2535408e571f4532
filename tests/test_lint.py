"""mypy over the project, as `make lint` runs it, inside the test run rather than before it.

`make test` (what CI runs) used to run `make lint` first: on 2 cores a cold mypy is a minute or two of wall
time before the first test. As a test it runs while the shared sample build does (tests/support/
sample_build.py), on the core the serial build leaves free, so it costs the run next to nothing; a type
error still fails `make test`. ruff stays in the Makefile ahead of the tests (seconds, fails first).

pyproject.toml has mypy read the parts of openai, Ray and a few libraries that no code of ours reaches as
untyped rather than analyse them (about half of a cold run's CPU); the second test keeps that list honest.
"""

from __future__ import annotations

import ast
import subprocess
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from tests.support.project import BIN, ROOT, env


@pytest.mark.slow
def test_mypy_is_clean() -> None:
    result = subprocess.run(
        [str(BIN / "mypy")], cwd=ROOT, env=env(), capture_output=True, text=True, timeout=1800
    )
    assert result.returncode == 0, f"mypy found errors:\n{result.stdout[-6000:]}\n{result.stderr[-2000:]}"


def skipped_modules() -> list[str]:
    """The module patterns pyproject.toml has mypy skip (``follow_imports = "skip"``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    return [
        pattern
        for override in config.get("overrides", [])
        if override.get("follow_imports") == "skip"
        for pattern in ([override["module"]] if isinstance(override["module"], str) else override["module"])
    ]


def imported_modules(source: str) -> Iterator[str]:
    """Every absolute module an import statement in ``source`` may load (``from a import b``: ``a`` and
    ``a.b``, since ``b`` may be a submodule)."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def matches(module: str, pattern: str) -> bool:
    """mypy's override matching: ``a.b.*`` is ``a.b`` and everything under it; a plain name is itself."""
    if pattern.endswith(".*"):
        package = pattern[:-2]
        return module == package or module.startswith(package + ".")
    return module == pattern


def skipped_imports(files: Iterable[Path], patterns: list[str]) -> list[str]:
    return sorted(
        f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}: {module} (skipped as {pattern})"
        for path in files
        for module in set(imported_modules(path.read_text(encoding="utf-8")))
        for pattern in patterns
        if matches(module, pattern)
    )


def test_mypy_skips_no_module_our_code_imports() -> None:
    """A skipped module is Any to mypy: a call into one our code makes would go unchecked."""
    patterns = skipped_modules()
    assert "ray.serve.*" in patterns and "openai.resources.beta.*" in patterns  # the list is read at all
    ours = [
        path for folder in ("almanac", "stages", "bench") for path in sorted((ROOT / folder).rglob("*.py"))
    ]
    assert skipped_imports(ours, patterns) == []


def test_an_import_of_a_skipped_module_is_found(tmp_path: Path) -> None:
    module = tmp_path / "uses_serve.py"
    module.write_text("import ray\nfrom ray import serve\nfrom openai.types.beta.thread import Thread\n")
    found = skipped_imports([module], ["ray.serve.*", "openai.types.beta.*", "ray.data.*"])
    assert [line.split(": ", 1)[1] for line in found] == [
        "openai.types.beta.thread (skipped as openai.types.beta.*)",
        "openai.types.beta.thread.Thread (skipped as openai.types.beta.*)",
        "ray.serve (skipped as ray.serve.*)",
    ]
