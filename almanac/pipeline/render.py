"""``dvc.yaml`` rendered from the stage declarations (``almanac dag``; ``make dag``).

A stage's code is its *code files*: the exact files of its module's import closure (``imports.closure``: no
package folders, so an edit reruns only the stages that run the edited file), the prompt of every LLM task it
may send and ``prompts/repair.md`` (the repair round of ``almanac.llm.tasks.run_task``, sent for any reply
that does not parse). DVC does not list them per stage (~45 a stage, 93% of all deps: a no-op repro paid for
each): the first stage, ``code_hashes`` (:func:`code_stage`), deps on the folders holding every code file
of some stage (``code_roots``: almanac/, prompts/, stages/; .dvcignore leaves bytecode out) and writes one
fingerprint per stage, ``data/code/<stage>.sha256`` (the sha256 of each of the stage's code files,
``almanac.pipeline.fingerprints``). A stage's deps are its fingerprint, then the data it reads; so an edit
changes exactly the fingerprints of the stages whose closure holds the edited file, and only those rerun (an
edit to a file no stage runs reruns ``code_hashes`` alone, which rewrites nothing). Folders, not the ~400
files: DVC's per-stage lock compares every dep with every other (quadratic), and dvc.lock listed each file.
``code_hashes`` also deps on params.yaml and copies it to ``data/code/params.json``, the params file every
stage's ``params:`` names (DVC loads it once per stage: JSON, not YAML). Outs and the top-level metrics and
plots come from the declarations. Rendering is pure: the same declarations and code give the same bytes,
and the committed ``dvc.yaml`` is tested to be what rendering gives.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import Final

from almanac.core.month_lists import derived_lists, vars_lines
from almanac.pipeline.code_stage import CODE_HASHES, PARAMS_COPY, PARAMS_FILE, code_stage, fingerprint_path
from almanac.pipeline.declare import ITEM, Stage
from almanac.pipeline.imports import ROOT, closure

PROMPTS: Final = PurePosixPath("prompts")
REPAIR_PROMPT: Final = PROMPTS / "repair.md"  # almanac.llm.tasks.REPAIR_PROMPT
HEADER: Final = """\
# The Almanac DAG, rendered by `almanac dag` (`make dag`) from almanac/pipeline/: edit the declarations there,
# never this file (a test fails when rendering would change it). Per-month stages use foreach over a list
# of params.yaml: `dvc repro ccnews_ingest@2025-05` rebuilds one month; adding one builds only that month.
#
# Deps: a stage's code is the exact project files its module imports (walked statically; no package folders),
# the prompt of every LLM task it may send plus prompts/repair.md (the repair round). The first stage,
# code_hashes, deps on the folders holding them and writes one fingerprint per stage, data/code/<stage>.sha256
# (the sha256 of each of that stage's code files); a stage deps on its fingerprint and the upstream outputs
# it reads, so an edit reruns exactly the stages that run the edited file (docs/build_speed.md). Params: a
# stage's params name data/code/params.json, params.yaml as JSON, which code_hashes writes from params.yaml.
#
# `months` (params.yaml) is the one list a user edits; the other foreach lists follow from it and are
# rendered into `vars` below (docs/months.md): re-render (`almanac dag`, `almanac month add/remove`) after
# editing it.
"""


def prompt_files(stage: Stage) -> list[str]:
    """The prompt templates ``stage`` may send: one per task, and the repair round's when it sends any."""
    files = [(PROMPTS / f"{task}.md").as_posix() for task in stage.tasks]
    return [*files, REPAIR_PROMPT.as_posix()] if files else []


def code_files(stage: Stage, root: Path = ROOT) -> list[str]:
    """What ``stage`` runs: its import closure's files (sorted), then the prompts it may send."""
    code = frozenset().union(*(closure(module, root) for module in stage.code_modules))
    return [*sorted(code), *prompt_files(stage)]


def hashed_files(stages: Sequence[Stage], root: Path = ROOT) -> list[str]:
    """The deps of ``code_hashes``: every code file of some stage (its own included), each once."""
    return sorted(frozenset().union(*(code_files(stage, root) for stage in stages)))


def code_roots(files: Iterable[str]) -> list[str]:
    """The top-level folders holding ``files`` (a file at the top is its own root), sorted, each once."""
    return sorted({PurePosixPath(path).parts[0] for path in files})


def deps(stage: Stage, root: Path = ROOT, stages: Sequence[Stage] | None = None) -> list[str]:
    """Every dep of ``stage`` in rendering order (``${item}`` left for DVC to fill); ``stages``: the whole
    DAG (default: this project's), whose code files' folders and params.yaml are the deps of
    ``code_hashes``."""
    if stage.name == CODE_HASHES:
        return [*code_roots(hashed_files(_dag() if stages is None else stages, root)), PARAMS_FILE.as_posix()]
    return [fingerprint_path(stage.name).as_posix(), *stage.reads]


def _dag() -> Sequence[Stage]:
    from almanac.pipeline.dag import STAGES

    return STAGES


def _related(read: str, output: str) -> bool:
    """A read and an output are one data edge when equal or one holds the other."""
    a, b = PurePosixPath(read), PurePosixPath(output)
    return a == b or a.is_relative_to(b) or b.is_relative_to(a)


def upstream(stage: Stage, stages: Sequence[Stage]) -> tuple[Stage, ...]:
    """The declared stages whose outputs ``stage`` reads (a per-month output's folder counts)."""
    found: list[Stage] = []
    for other in stages:
        if other is stage:
            continue
        outputs = [path.as_posix() for path in other.writes]
        bare = [
            str(PurePosixPath(path).parent) if ITEM in PurePosixPath(path).name else path for path in outputs
        ]
        if any(_related(read, out) for read in stage.reads for out in (*outputs, *bare)):
            found.append(other)
    return tuple(found)


def is_raw(read: str) -> bool:
    """A raw input: a params-named folder or the bundled sample's raw data, produced by no stage."""
    return read.startswith("${") or PurePosixPath(read).is_relative_to("data/raw")


def problems(stages: Sequence[Stage], root: Path = ROOT) -> list[str]:
    """What would make the rendered DAG wrong: a read no stage writes, a missing module or prompt."""
    found: list[str] = []
    outputs = [(other, path.as_posix()) for other in stages for path in other.writes]
    hashing = [stage for stage in stages if stage.name == CODE_HASHES]
    if len(hashing) != 1 or hashing[0].writes != code_stage(stages[1:]).writes or stages[0] is not hashing[0]:
        found.append(f"the first stage must be {CODE_HASHES}, code_stage() of the others")
    for stage in stages:
        for module in stage.code_modules:
            if not (root / (module.replace(".", "/") + ".py")).is_file():
                found.append(f"{stage.name}: no module {module}")
        found += [
            f"{stage.name}: no prompt {path}" for path in prompt_files(stage) if not (root / path).is_file()
        ]
        for read in stage.reads:
            if is_raw(read):
                continue
            owners = {
                other.name for other, out in outputs if _related(read, out) or _related(read, _parent(out))
            }
            if stage.name in owners:
                found.append(f"{stage.name}: reads its own output {read}")
            elif not owners:
                found.append(f"{stage.name}: reads {read}, which no stage writes")
    return found


def _parent(path: str) -> str:
    """``a/b/${item}.json`` -> ``a/b`` (every month's files of a per-month output), else the path itself."""
    pure = PurePosixPath(path)
    return str(pure.parent) if ITEM in pure.name else path


def _list(key: str, items: Iterable[str], indent: str) -> list[str]:
    entries = list(items)
    return [f"{indent}{key}:", *(f"{indent}  - {entry}" for entry in entries)] if entries else []


def _outs(stage: Stage, indent: str) -> list[str]:
    lines = [f"{indent}outs:"]
    for path in stage.writes:
        kept = stage.is_git_kept(path) or stage.name == CODE_HASHES
        options = (["cache: false"] if kept else []) + (["persist: true"] if path in stage.persist else [])
        if options:
            lines.append(f"{indent}  - {path.as_posix()}:")
            lines += [f"{indent}      {option}" for option in options]
        else:
            lines.append(f"{indent}  - {path.as_posix()}")
    return lines


def render_stage(stage: Stage, root: Path = ROOT, stages: Sequence[Stage] | None = None) -> list[str]:
    lines = [f"  # {line}" for line in textwrap.wrap(stage.note, 108)]
    lines.append(f"  {stage.name}:")
    indent = "    "
    if stage.foreach is not None:
        lines += [f"    foreach: ${{{stage.foreach}}}", "    do:"]
        indent = "      "
    lines.append(f"{indent}cmd: {stage.cmd}")
    lines += _list("deps", deps(stage, root, stages), indent)
    if stage.params:  # DVC's form for a params file other than params.yaml: `- file: [keys]`
        lines += [f"{indent}params:", f"{indent}  - {PARAMS_COPY.as_posix()}:"]
        lines += [f"{indent}      - {key}" for key in stage.params]
    return lines + _outs(stage, indent)


def render(
    stages: Sequence[Stage],
    metrics: Sequence[Path] = (),
    plots: Sequence[Path] = (),
    root: Path = ROOT,
    lists: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """The whole ``dvc.yaml``; ValueError listing every problem when the declarations do not fit together.
    ``lists``: the derived foreach lists (``derived_lists``), rendered as DVC ``vars``."""
    wrong = problems(stages, root)
    if wrong:
        raise ValueError("the stage declarations do not fit together:\n" + "\n".join(wrong))
    body: list[str] = [HEADER.rstrip("\n"), *vars_lines(lists or {}), "stages:"]
    for index, stage in enumerate(stages):
        body += ([""] if index else []) + render_stage(stage, root, stages)
    body += [
        "",
        "# The only DVC metrics and plots: each style's summary of the whole dataset and its panels.",
    ]
    body += _list("metrics", (path.as_posix() for path in metrics), "")
    body += _list("plots", (path.as_posix() for path in plots), "")
    return "\n".join(body) + "\n"


def render_project(root: Path = ROOT, params_file: Path | None = None) -> str:
    """This project's ``dvc.yaml``, its derived month lists from ``params_file`` (root/params.yaml)."""
    from almanac.core.params import load_params
    from almanac.pipeline.dag import STAGES
    from almanac.pipeline.finals import DVC_METRICS, DVC_PLOTS

    params = load_params(params_file or root / "params.yaml")
    return render(STAGES, DVC_METRICS, DVC_PLOTS, root, derived_lists(params))
