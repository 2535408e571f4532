"""The foreach lists of ``dvc.yaml`` that follow from ``params.yaml: months``, and the ``vars`` block they are
rendered into (DVC's foreach cannot derive one list from another, docs/months.md).

Here, below almanac.pipeline, so that ``make repro`` (almanac.core.repro) can bring a stale block up to date
without the pipeline's import walk.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from almanac.core.params import ccnews_months


def derived_lists(params: Mapping[str, Any]) -> dict[str, list[str]]:
    """The foreach lists that follow from ``months`` (every one of the pipeline's FOREACH_LISTS but
    ``months`` itself)."""
    return {"ccnews_months": ccnews_months(params)}


def vars_lines(lists: Mapping[str, Sequence[str]]) -> list[str]:
    if not lists:
        return []
    lines = ["vars:"]
    for index, (name, items) in enumerate(lists.items()):
        listed = ", ".join(f'"{item}"' for item in items)
        lines.append(f"  {'- ' if index == 0 else '  '}{name}: [{listed}]")
    return lines


def with_lists(rendered: str, lists: Mapping[str, Sequence[str]]) -> str:
    """A rendered ``dvc.yaml`` with its ``vars`` block (the derived month lists) replaced by ``lists``: what
    rendering gives after ``months`` changed and nothing else, without walking the imports again."""
    lines = rendered.split("\n")
    start = lines.index("vars:")
    end = lines.index("stages:")
    return "\n".join([*lines[:start], *vars_lines(lists), *lines[end:]])
