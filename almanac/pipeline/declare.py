"""One DVC stage as data: what it runs, reads, writes, which params and LLM tasks it uses.

A :class:`Stage` is the single place a stage is written down; ``dvc.yaml`` is rendered from these records
(``almanac.pipeline.render``), its code deps found by walking the stage module's imports. Paths are
repo-relative; a per-month stage writes its paths with ``ITEM`` (DVC's ``${item}``) where the month goes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

ITEM: Final = "${item}"  # DVC's foreach item: the month (or report scope) of a per-month stage
# The foreach lists of params.yaml a per-month stage can run over.
FOREACH_LISTS: Final = ("months", "ccnews_months")


@dataclass(frozen=True, kw_only=True)
class Stage:
    """One DVC stage (one foreach template for a per-month stage)."""

    name: str  # the dvc.yaml stage name
    # the stage module, run as ``python -m <module> <args> [--month ${item}]``: a docstring and one call of
    # ``function``. A stage may leave it to the launcher ``stages.run`` instead (no stage module to write).
    module: str = "stages.run"
    writes: tuple[Path, ...]  # every output, in dvc.yaml order; under reports/ (but not reports/metrics/)
    # the files are small and kept by git (cache: false)
    reads: tuple[
        str, ...
    ] = ()  # data deps: upstream outputs (or files/folders inside or around them), raw inputs
    params: tuple[str, ...] = ()  # params.yaml sections (dotted) whose change reruns the stage
    tasks: tuple[str, ...] = ()  # LLM tasks it may send (prompts/<task>.md); the repair round comes with them
    foreach: str | None = None  # a per-month stage: the params list it runs over (FOREACH_LISTS)
    args: tuple[str, ...] = ()  # extra command-line arguments (the check stages' --style)
    persist: tuple[Path, ...] = ()  # outputs DVC keeps between runs (the verified GDELT downloads)
    note: str = ""  # why the stage is as it is: rendered as a comment above it in dvc.yaml
    # ``package.module:function``: the domain function that does the stage's work, called by the stage module
    # (or by the launcher ``stages.run``); it parses its arguments (``almanac.core.stage.parse_stage_args``)
    # and returns the exit code. Every stage of the DAG names one (tests/test_stage_modules.py).
    function: str = ""
    # A step run inside another DVC stage (that stage's name), not a dvc.yaml stage of its own: its outputs,
    # metrics, summary line and timings keep its name; the stage it runs in depends on and writes its paths.
    runs_in: str = ""

    def __post_init__(self) -> None:
        if self.module == "stages.run" and not self.function:
            raise ValueError(f"stage {self.name}: the launcher stages.run needs a function to call")
        if self.function and ":" not in self.function:
            raise ValueError(f"stage {self.name}: function {self.function!r} is not package.module:function")
        if self.foreach is not None and self.foreach not in FOREACH_LISTS:
            raise ValueError(f"stage {self.name}: foreach {self.foreach!r} is none of {FOREACH_LISTS}")
        if self.foreach is None and any(ITEM in path.as_posix() for path in self.writes):
            raise ValueError(f"stage {self.name}: writes per-month paths but runs once")
        if not set(self.persist) <= set(self.writes):
            raise ValueError(f"stage {self.name}: persists paths it does not write")
        if not self.writes:
            raise ValueError(f"stage {self.name}: writes nothing")

    @property
    def per_month(self) -> bool:
        return self.foreach is not None

    @property
    def cmd(self) -> str:
        month = ("--month", ITEM) if self.per_month else ()
        launched = (self.name, self.function) if self.module == "stages.run" else ()
        return " ".join(("sh stages/python -m", self.module, *launched, *self.args, *month))

    @property
    def code_modules(self) -> tuple[str, ...]:
        """The modules whose import closure the stage runs: its stage module (which imports its function's
        module, so the walk reaches exactly the code the function runs), or the launcher and the function's
        module (the launcher imports it by name, invisible to the static walk)."""
        if self.module == "stages.run":
            return (self.module, self.function_module)
        return (self.module,)

    @property
    def function_module(self) -> str:
        """The module that defines ``function`` ("" when none is named)."""
        return self.function.partition(":")[0]

    def outputs(self, month: str = "") -> tuple[Path, ...]:
        """What the stage writes for ``month`` (the foreach item; ignored by a stage that runs once)."""
        return tuple(Path(path.as_posix().replace(ITEM, month)) for path in self.writes)

    def metrics_file(self, month: str = "") -> Path:
        """The stage's own metrics file (``reports/metrics/...``) for ``month``; ValueError if not one."""
        found = [path for path in self.outputs(month) if path.parts[:2] == ("reports", "metrics")]
        if len(found) != 1:
            raise ValueError(f"stage {self.name} writes {len(found)} metrics files, not one")
        return found[0]

    def is_git_kept(self, path: Path) -> bool:
        """Reports (but not stage metrics) are small text or images kept by git: DVC caches none of them."""
        parts = path.parts
        return parts[0] == "reports" and parts[1:2] != ("metrics",)


def steps_stage(name: str, function: str, steps: tuple[Stage, ...], note: str = "") -> Stage:
    """The DVC stage ``name`` that runs ``steps`` (each declared with ``runs_in=name``) in order in one
    process (``almanac.core.steps.run_steps``): it reads what the steps read from outside it (a step's input
    that an earlier step writes is not a dep), declares their params and tasks, writes and persists their
    paths."""
    written = {path.as_posix() for step in steps for path in step.writes}
    if any(step.runs_in != name or step.foreach != steps[0].foreach for step in steps):
        raise ValueError(f"stage {name}: its steps must run in it and over the same months")
    return Stage(
        name=name,
        module=f"stages.{name}",
        function=function,
        foreach=steps[0].foreach,
        reads=tuple(read for read in dict.fromkeys(r for s in steps for r in s.reads) if read not in written),
        params=tuple(dict.fromkeys(param for step in steps for param in step.params)),
        tasks=tuple(dict.fromkeys(task for step in steps for task in step.tasks)),
        writes=tuple(path for step in steps for path in step.writes),
        persist=tuple(path for step in steps for path in step.persist),
        note=note,
    )
