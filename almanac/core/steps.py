"""Several stage steps in one process: one Python start-up and one round of DVC bookkeeping instead of one
per step (issue 26: each stage instance costs ~1.7 s around its own work on the sample).

A step is a stage function as it was when it was a DVC stage of its own (``run() -> int``, parsing its own
arguments with ``almanac.core.stage.parse_stage_args``, which names the run after ``sys.argv[0]``'s stem).
:func:`run_steps` calls each in turn with ``sys.argv[0]`` set to the step's name, so each keeps its summary
line, its timings file and the label of its errors; the other arguments (``--month``, ``--params``) go to
every step. The first step that fails stops the stage with its exit code: the later steps read its outputs.
``--step NAME`` (repeatable) runs only the steps named, in the stage's order.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence

Step = tuple[str, Callable[[], int]]  # (the step's name, its stage function)


def chosen_steps(steps: Sequence[Step], argv: Sequence[str]) -> tuple[list[Step], list[str]]:
    """The steps ``--step NAME`` options name (all when none does) and the arguments left for them."""
    names = [name for name, _ in steps]
    wanted: list[str] = []
    rest: list[str] = []
    arguments = iter(argv)
    for argument in arguments:
        if argument == "--step" or argument.startswith("--step="):
            name = argument.partition("=")[2] if "=" in argument else next(arguments, "")
            if name not in names:
                raise SystemExit(f"{sys.argv[0]}: --step {name!r} is none of {', '.join(names)}")
            wanted.append(name)
        else:
            rest.append(argument)
    return [step for step in steps if not wanted or step[0] in wanted], rest


def run_steps(steps: Sequence[Step]) -> int:
    """Run ``steps`` in order in this process; the first non-zero exit code stops them and is returned."""
    chosen, rest = chosen_steps(steps, sys.argv[1:])
    for name, function in chosen:
        sys.argv = [f"{name}.py", *rest]  # parse_stage_args names the run after argv[0]'s stem
        code = int(function())
        if code != 0:
            return code
    return 0
