"""The launcher of a stage declared with a function (``Stage.function``) instead of a stage module.

``python -m stages.run <stage> <package.module:function> [--month M] ...`` imports the module, names the
process after the stage (the label of its errors, summary line and timings) and calls the function with no
arguments: it parses the remaining arguments itself (``almanac.core.stage.parse_stage_args``) and returns the
exit code. dvc.yaml lists the function module's import closure as the stage's deps (``almanac dag``), since
the import here is by name and invisible to the static walk.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence
from typing import cast


def main(argv: Sequence[str]) -> int:
    if len(argv) < 2 or ":" not in argv[1]:
        print("usage: python -m stages.run <stage> <package.module:function> [arguments]", file=sys.stderr)
        return 2
    stage, target, *rest = argv
    module, _, name = target.partition(":")
    function = cast(Callable[[], int], getattr(importlib.import_module(module), name))
    sys.argv = [f"{stage}.py", *rest]  # parse_stage_args names the run after argv[0]'s stem
    return int(function())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
