"""Every stage of dvc.yaml against the stage declarations (almanac.pipeline.dag.BY_NAME), path by path.

Outputs: each ``outs`` / ``metrics`` / ``plots`` entry of a stage (per month for a foreach stage) is the path
the table gives for that stage and month, and the reverse. Data deps: each dep under data/ or reports/ is
(inside, or a folder of) an output of another stage, or a raw input the table names for the stage.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import pytest
import yaml

from almanac.core.layout import raw_inputs
from almanac.pipeline.dag import BY_NAME as STAGES
from almanac.pipeline.dag import STEPS, STEPS_BY_NAME, dvc_stage
from almanac.pipeline.finals import DVC_METRICS, DVC_PLOTS, REPORT_SERIES

ROOT = Path(__file__).resolve().parents[1]
DVC_FILE = yaml.safe_load((ROOT / "dvc.yaml").read_text())
DVC = DVC_FILE["stages"]
# params.yaml, and the foreach lists dvc.yaml derives from its months (its `vars`)
PARAMS = {**yaml.safe_load((ROOT / "params.yaml").read_text()), **DVC_FILE["vars"][0]}
KINDS = ("outs", "metrics", "plots")
VARIABLE = re.compile(r"\$\{([^}]+)\}")


def _lookup(params: Mapping[str, Any], dotted: str) -> Any:
    value: Any = params
    for key in dotted.split("."):
        value = value[key]
    return value


def _resolve(text: str, item: str) -> str:
    """DVC's ``${item}`` and ``${section.key}`` interpolation, from params.yaml."""
    return VARIABLE.sub(lambda m: item if m[1] == "item" else str(_lookup(PARAMS, m[1])), text)


def _expanded() -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(stage name, foreach item or "", definition) of every stage dvc.yaml runs."""
    for name, definition in DVC.items():
        if "foreach" in definition:
            for item in _lookup(PARAMS, VARIABLE.fullmatch(definition["foreach"])[1]):  # type: ignore[index]
                yield name, item, definition["do"]
        else:
            yield name, "", definition


def _paths(definition: dict[str, Any], kind: str, item: str) -> list[str]:
    entries = definition.get(kind) or []
    names = [entry if isinstance(entry, str) else next(iter(entry)) for entry in entries]
    return [PurePosixPath(_resolve(name, item)).as_posix() for name in names]


def _layout(name: str, item: str, kind: str) -> list[str]:
    """A declaration's writes are dvc.yaml ``outs``; DVC metrics and plots are only the top-level lists."""
    return [path.as_posix() for path in STAGES[name].outputs(item)] if kind == "outs" else []


EXPANDED = list(_expanded())
PRODUCED = {
    (name, path.as_posix())
    for name, item, _definition in EXPANDED
    if name in STAGES
    for path in STAGES[name].outputs(item)
}


def _related(a: str, b: str) -> bool:
    """Equal, or one a folder of the other (a folder dep covers the outputs inside it)."""
    return a == b or a.startswith(b + "/") or b.startswith(a + "/")


def test_the_table_lists_exactly_the_dvc_stages() -> None:
    assert sorted(STAGES) == sorted(DVC)
    for name, definition in DVC.items():
        assert STAGES[name].per_month == ("foreach" in definition), name


def test_outputs_of_every_stage_and_month_are_the_layout_paths() -> None:
    wrong = [
        f"{name}@{item or '-'} {kind}: dvc.yaml {declared} != layout {expected}"
        for name, item, definition in EXPANDED
        for kind in KINDS
        if sorted(declared := _paths(definition, kind, item)) != sorted(expected := _layout(name, item, kind))
    ]
    assert not wrong, "\n".join(wrong)


def _raw_inputs(name: str, item: str) -> list[Path]:
    """The raw inputs of stage ``name``: its own, or those of the steps it runs (gdelt_month: the download's)."""
    found = raw_inputs(PARAMS, item)
    names = [name, *(step.name for step in STEPS if step.runs_in == name)]
    return [path for each in names for path in found.get(each, ())]


def test_data_deps_are_upstream_outputs_or_raw_inputs() -> None:
    wrong = []
    for name, item, definition in EXPANDED:
        raw = [path.as_posix() for path in _raw_inputs(name, item)]
        for dep in _paths(definition, "deps", item):
            if not dep.startswith(("data/", "reports/")):
                continue  # code, prompts, package data: another test's business
            upstream = any(_related(dep, out) for producer, out in PRODUCED if producer != name)
            if not upstream and not any(dep == path or dep.startswith(path + "/") for path in raw):
                wrong.append(f"{name}@{item or '-'}: {dep} is neither an upstream output nor a raw input")
    assert not wrong, "\n".join(wrong)


def test_derived_lists_are_the_months() -> None:
    """The CC-News months are the months (the source is on in the sample): DVC's foreach cannot derive one list
    from another, so rendering writes it into dvc.yaml's vars."""
    assert DVC_FILE["vars"][0]["ccnews_months"] == PARAMS["months"]
    assert "report_scopes" not in yaml.safe_load((ROOT / "params.yaml").read_text())


def test_one_report_stage_per_style_writes_the_style_folder() -> None:
    """One process per style, not one per (style, month): the stage runs once (no foreach, no --month), its one
    output is reports/<style>/, and the DVC metrics and plots it feeds lie inside that folder."""
    for style in REPORT_SERIES:
        # the stage that runs it: <style>_stats_report (the style's statistics, then its report), or itself
        declared = STEPS_BY_NAME.get(f"{style}_report") or STAGES[f"{style}_report"]
        stage = DVC[dvc_stage(declared).name]
        assert "foreach" not in stage, style
        assert "--month" not in stage["cmd"], style
        assert {f"reports/{style}": {"cache": False}} in stage["outs"], style
        assert [declared.writes] == [(Path(f"reports/{style}"),)], style
        # a month added to params reruns the reports (params name params.yaml's JSON copy, data/code/params.json)
        assert "months" in stage["params"][0]["data/code/params.json"], style
    for path in (*DVC_METRICS, *DVC_PLOTS):
        assert path.parts[0] == "reports" and path.parts[2] == "all", path


def test_top_level_metrics_and_plots_are_the_layouts() -> None:
    assert DVC_FILE["metrics"] == [path.as_posix() for path in DVC_METRICS]
    assert DVC_FILE["plots"] == [path.as_posix() for path in DVC_PLOTS]


def test_raw_inputs_of_each_source_stage_are_its_deps() -> None:
    """Package data (a raw input under almanac/) is a code file: a dep through the stage's fingerprint."""
    from almanac.pipeline.render import code_files

    for name, item, definition in EXPANDED:
        deps = _paths(definition, "deps", item) + code_files(STAGES[name])
        for path in _raw_inputs(name, item):
            assert path.as_posix() in deps, f"{name}@{item or '-'} reads {path} but does not depend on it"


def test_a_stage_never_depends_on_its_own_output() -> None:
    for name, item, definition in EXPANDED:
        own = [path.as_posix() for path in STAGES[name].outputs(item)]
        for dep in _paths(definition, "deps", item):
            assert not any(_related(dep, out) for out in own), f"{name}: {dep} is its own output"


@pytest.mark.parametrize("style", sorted(REPORT_SERIES))
def test_report_series_are_the_builders_series(style: str) -> None:
    import importlib

    builder = importlib.import_module(f"almanac.reports.{style}")
    assert REPORT_SERIES[style] == builder.SERIES


def test_stage_modules_build_no_data_or_report_path_by_hand() -> None:
    """Stage code takes every path from almanac.core.layout; a literal "data/..." would bypass the table."""
    found = []
    for module in sorted((ROOT / "stages").glob("*.py")):
        tree = ast.parse(module.read_text())
        docstrings = {
            id(node.value)
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        }
        for node in ast.walk(tree):
            if (
                not isinstance(node, ast.Constant)
                or not isinstance(node.value, str)
                or id(node) in docstrings
            ):
                continue
            if node.value in ("data", "reports") or node.value.startswith(("data/", "reports/")):
                found.append(f"{module.name}:{node.lineno}: {node.value!r}")
    assert not found, "\n".join(found)


def test_outputs_differ_by_month_and_stage() -> None:
    """Two stages (or two months of one stage) never write the same path: DVC would refuse the DAG."""
    owners: dict[str, str] = {}
    for name, item, _definition in EXPANDED:
        for path in STAGES[name].outputs(item):
            key = path.as_posix()
            assert key not in owners, f"{key}: {owners[key]} and {name}@{item}"
            owners[key] = f"{name}@{item}"
