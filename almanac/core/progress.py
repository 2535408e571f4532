"""Progress bars for the per-item work of a stage: items done, rate and ETA, on stderr.

A bar is drawn only when stderr is a terminal and ``params.yaml: progress`` is not false. DVC passes the
terminal through to stage commands, so bars show under ``dvc repro``; captured or redirected stderr (tests,
CI logs, Ray workers, whose output goes to log files) gets no bar text at all. Bars vanish when done
(``leave=False``): what stays on screen after a stage is its one summary line (``almanac.core.stage``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping, Sized
from typing import Any, Protocol, TypeVar

from tqdm import tqdm

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

# Set from params by the stage entry point (parse_stage_args); True means "when stderr is a TTY".
_allowed_by_params = True


class Bar(Protocol[T_co]):
    """The part of a tqdm bar stage code uses: iterate it, or ``update`` it by hand, then close it."""

    def __iter__(self) -> Iterator[T_co]: ...

    def update(self, n: float = 1) -> bool | None: ...

    def close(self) -> None: ...


def configure_progress(params: Mapping[str, Any]) -> None:
    """Read ``progress`` (default true: bars when stderr is a TTY; false: never) from the params."""
    global _allowed_by_params
    value = params.get("progress", True)
    if not isinstance(value, bool):
        raise ValueError(f"params.yaml: progress must be true or false, got {value!r}")
    _allowed_by_params = value


def progress_enabled() -> bool:
    return _allowed_by_params and sys.stderr.isatty()


def progress(
    items: Iterable[T] | None = None,
    *,
    desc: str,
    unit: str = "item",
    total: int | None = None,
    initial: int = 0,
) -> Bar[T]:
    """A bar over ``items`` (iterate it instead of them), or with ``items=None`` one to ``update`` by hand.

    ``total`` defaults to ``len(items)`` when they have one; without a total the bar shows count and rate.
    ``initial`` counts work done before the bar started (e.g. answers found in the LLM cache).
    """
    if total is None and isinstance(items, Sized):
        total = len(items)
    bar: Bar[T] = tqdm(
        items,
        desc=desc,
        unit=unit,
        total=total,
        initial=initial,
        file=sys.stderr,
        disable=not progress_enabled(),
        leave=False,
        dynamic_ncols=True,
        mininterval=0.5,
    )
    return bar
