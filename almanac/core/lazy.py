"""A module imported on first use: heavy libraries stay out of a process that never touches them.

Every stage runs as its own process, so whatever a module imports at its top is paid by every stage
whose import closure reaches it: spaCy (~1 s of CPU), the openai SDK (~1 s), matplotlib, DuckDB and
trafilatura were paid by stages that never called them. A module that needs one of them only inside
functions binds the name with :func:`lazy_module` and keeps the real import for the type checker::

    from typing import TYPE_CHECKING

    from almanac.core.lazy import lazy_module

    if TYPE_CHECKING:
        import duckdb
    else:
        duckdb = lazy_module("duckdb")

Code then reads as usual (``duckdb.connect()``, ``except openai.APIStatusError``); the import happens at
the first attribute read, under Python's import lock, so threads are safe. Annotations are strings
(``from __future__ import annotations``) and never trigger it. tests/test_stage_imports.py fails when a
stage's import pulls one of these libraries in.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any


class LazyModule(ModuleType):
    """Stands in for module ``name`` until an attribute is read, then forwards to the real module."""

    def __init__(self, name: str, before: Callable[[], None] | None = None) -> None:
        super().__init__(name)
        self._lazy_target: ModuleType | None = None
        self._lazy_before = before

    def __getattr__(self, attribute: str) -> Any:
        # Only called for attributes this stand-in lacks, i.e. everything of the real module.
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        target = self._lazy_target
        if target is None:
            if self._lazy_before is not None:
                self._lazy_before()
            target = importlib.import_module(self.__name__)
            self._lazy_target = target
        return getattr(target, attribute)

    def __repr__(self) -> str:
        state = "loaded" if self._lazy_target is not None else "not loaded yet"
        return f"<lazy module {self.__name__!r}, {state}>"


def lazy_module(name: str, before: Callable[[], None] | None = None) -> Any:
    """A stand-in for ``import name`` that imports it at the first attribute read (typed Any), after
    calling ``before`` (e.g. to choose matplotlib's backend before pyplot is imported)."""
    return LazyModule(name, before)
