"""Each style's recipe table (almanac/{foresight,events,mirai,futurex}/recipe.py) against dvc.yaml, the funnels and README.

The table is the one place a style's stage order is written; these tests fail when dvc.yaml's data deps,
a funnel or README's stage tables disagree with it.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from almanac.check import stage as check_stage
from almanac.core.layout.paths import metrics_path
from almanac.events.recipe import RECIPE as OPENFORECAST
from almanac.foresight import generate, month_stage
from almanac.foresight.recipe import RECIPE as OPENFORESIGHT
from almanac.futuresim.recipe import RECIPE as FUTURESIM
from almanac.futurex.recipe import RECIPE as FUTUREX
from almanac.mirai.steps import RECIPE as MIRAI
from almanac.pipeline import foresight as foresight_steps
from almanac.pipeline.dag import BY_NAME as STAGES
from almanac.pipeline.dag import STEPS, STEPS_BY_NAME
from almanac.pipeline.declare import Stage
from almanac.pipeline.finals import CHECK_STEPS
from almanac.pipeline.recipe import CORPUS, Recipe, Step
from almanac.reports import mirai, openforecast, openforesight
from almanac.reports import series as series_report
from almanac.reports.foresight_funnel import OPENFORESIGHT_FUNNEL
from almanac.series.recipe import RECIPE as SERIES
from tests.test_layout_dvc import DVC, EXPANDED, _paths, _related, _resolve

ROOT = Path(__file__).resolve().parents[1]
RECIPES = (OPENFORESIGHT, OPENFORECAST, MIRAI, FUTURESIM, FUTUREX, SERIES)
# README keeps its stage tables for the news styles; the series steps are listed in docs/series.md.
README_RECIPES = tuple(recipe for recipe in RECIPES if recipe is not SERIES)
BY_STYLE = {recipe.style: recipe for recipe in RECIPES}


# Each stage of dvc.yaml, or for a stage that runs steps (foresight_month, check) each of its steps, with the
# data it reads and writes for one foreach item: dvc.yaml's deps and outs, a step's its declaration's.
UNITS = [
    (
        unit.name,
        item,
        [_resolve(read, item) for read in unit.reads],
        [p.as_posix() for p in unit.outputs(item)],
    )
    for name, item, definition in EXPANDED
    for unit in [step for step in STEPS if step.runs_in == name]
] + [
    (name, item, _paths(definition, "deps", item), [p.as_posix() for p in STAGES[name].outputs(item)])
    for name, item, definition in EXPANDED
    if not any(step.runs_in == name for step in STEPS)
]
DECLARED = {**STAGES, **STEPS_BY_NAME}


def _producers() -> dict[str, set[str]]:
    """Stage or step -> the stages and steps whose outputs its data deps name (every month of a foreach)."""
    produced = {(name, out) for name, _item, _reads, outs in UNITS for out in outs}
    found: dict[str, set[str]] = {}
    for name, _item, reads, _outs in UNITS:
        found.setdefault(name, set())
        for dep in reads:
            # data/code/<stage>.sha256 is the stage's code fingerprint (code_hashes, no style's data)
            if dep.startswith(("data/", "reports/")) and not dep.startswith("data/code/"):
                found[name] |= {
                    producer for producer, out in produced if producer != name and _related(dep, out)
                }
    return found


def test_a_stage_that_runs_steps_reads_what_they_read_from_outside_it() -> None:
    """foresight_month and check: dvc.yaml's deps are the steps' reads, less what an earlier step writes."""
    for name, item, definition in EXPANDED:
        steps = [step for step in STEPS if step.runs_in == name]
        if not steps:
            continue
        written = {p.as_posix() for step in steps for p in step.outputs(item)}
        reads = {_resolve(read, item) for step in steps for read in step.reads} - written
        data = {dep for dep in _paths(definition, "deps", item) if not dep.startswith("data/code/")}
        assert data == reads, name
        assert sorted(_paths(definition, "outs", item)) == sorted(written), name


PRODUCERS = _producers()


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: r.style)
def test_each_step_reads_the_steps_its_table_entry_names(recipe: Recipe) -> None:
    """dvc.yaml's data deps chain the steps as the table says: the previous step, or the ``after`` list."""
    wrong = []
    own = set(recipe.stages)
    for stage in recipe.stages:
        reads, expected = PRODUCERS[stage], set(recipe.after(stage))
        if reads & own != expected:
            wrong.append(f"{stage}: dvc.yaml reads {sorted(reads & own)}, the table says {sorted(expected)}")
        if reads - own - set(CORPUS) - set(recipe.uses):
            wrong.append(
                f"{stage}: reads {sorted(reads - own - set(recipe.uses))}, outside its recipe, the corpus "
                "and the stages its recipe `uses`"
            )
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: r.style)
def test_every_stage_downstream_of_a_style_is_in_its_table(recipe: Recipe) -> None:
    steps = set(recipe.stages)
    downstream = {name for name, reads in PRODUCERS.items() if reads & steps}
    # A step of another recipe may read these steps when its recipe names what it reads in `uses`.
    users = {
        stage
        for other in RECIPES
        if other is not recipe
        for stage in other.stages
        if PRODUCERS[stage] & steps and PRODUCERS[stage] & steps <= set(other.uses)
    }
    assert downstream - steps - users == set(recipe.reports)
    for report in recipe.reports:
        assert not PRODUCERS[report] - steps - set(CORPUS), f"{report} reads another style's stages"


def test_every_dvc_stage_belongs_to_one_recipe_or_the_corpus() -> None:
    # code_hashes: code, not data; a stage that runs steps belongs where each of its steps does
    owners: dict[str, list[str]] = {name: [] for name in PRODUCERS if name != "code_hashes"}
    hosts = {step.runs_in for step in STEPS}
    assert set(DVC) == {*(set(owners) - set(STEPS_BY_NAME)), "code_hashes", *hosts}
    for recipe in RECIPES:
        for stage in (*recipe.stages, *recipe.reports):
            owners[stage].append(recipe.style)  # KeyError: the table names a stage dvc.yaml lacks
    for stage in CORPUS:
        owners[stage].append("corpus")
    assert {name: where for name, where in owners.items() if len(where) != 1} == {}


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: r.style)
def test_per_month_and_funnel_flags_match_the_layout(recipe: Recipe) -> None:
    for step in recipe.steps:
        assert step.per_month == DECLARED[step.stage].per_month, step.stage
        assert step.per_month == STAGES[step.dvc_stage].per_month, step.stage
        # The funnel sums stage metrics files, so a step is in it exactly when it writes one (an output, not
        # a DVC metric: only the style summaries are).
        outputs = DECLARED[step.stage].outputs("2025-01")
        writes_stage_metrics = metrics_path(step.stage, "2025-01" if step.per_month else None) in outputs
        assert step.funnel == writes_stage_metrics, step.stage


def test_the_declarations_list_the_openforesight_steps_in_the_recipe_order() -> None:
    per_month = [step.stage for step in OPENFORESIGHT.steps if step.per_month]
    assert [step.name for step in foresight_steps.PER_MONTH_STEPS] == per_month
    # and foresight_month runs them in that order: each step function is its declaration's
    assert [f"{run.__module__}:{run.__name__}" for run in month_stage.STEPS] == [
        step.function for step in foresight_steps.PER_MONTH_STEPS
    ]
    assert {step.runs_in for step in foresight_steps.PER_MONTH_STEPS} == {"foresight_month"}


def test_the_check_stage_runs_every_check_step_in_the_declared_order() -> None:
    assert [f"check_{style}" for style in check_stage.CHECKS] == [step.name for step in CHECK_STEPS]
    assert [step.args for step in CHECK_STEPS] == [("--style", style) for style in check_stage.CHECKS]


@pytest.mark.parametrize("recipe", RECIPES, ids=lambda r: r.style)
def test_reject_owner_modules_exist_and_name_their_stage(recipe: Recipe) -> None:
    for step in recipe.steps:
        module = importlib.import_module(step.rejects)
        declared = {
            value for name, value in vars(module).items() if name.endswith("STAGE") and isinstance(value, str)
        }
        # A module that names its stage in a constant must name this one.
        assert not declared or step.stage in declared, f"{step.stage}: {step.rejects} declares {declared}"


def test_funnels_are_the_recipes_funnel_steps_in_order() -> None:
    funnel = OPENFORESIGHT.funnel()
    assert [s.stage for s in OPENFORESIGHT_FUNNEL] == [s.stage for s in funnel]
    assert [s.label for s in OPENFORESIGHT_FUNNEL] == [s.label for s in funnel]
    assert OPENFORESIGHT_FUNNEL[0].produces == "candidates"
    assert OPENFORESIGHT.steps[0].produces == generate.PRODUCES
    assert OPENFORESIGHT_FUNNEL[0].source_label == "Source articles"
    for module, recipe in (
        (openforesight, OPENFORESIGHT),
        (openforecast, OPENFORECAST),
        (mirai, MIRAI),
        (series_report, SERIES),
    ):  # FutureX: no report
        assert [s.stage for s in module.FUNNEL] == [s.stage for s in recipe.funnel()], recipe.style
        assert [s.unit for s in module.FUNNEL] == [s.unit for s in recipe.funnel()], recipe.style
        assert [s.per_month for s in module.FUNNEL] == [s.per_month for s in recipe.funnel()], recipe.style


def test_uses_names_stages_of_other_recipes() -> None:
    for recipe in RECIPES:
        others = {stage for other in RECIPES if other is not recipe for stage in other.stages}
        assert set(recipe.uses) <= others, recipe.style
        used = set().union(*(PRODUCERS[stage] for stage in recipe.stages))
        assert set(recipe.uses) <= used, f"{recipe.style}: uses names a stage no step reads"


def test_a_table_refuses_a_step_reading_a_later_or_repeated_step() -> None:
    def declared(name: str) -> Stage:
        return Stage(name=name, module=f"stages.{name}", writes=(Path(f"data/{name}"),))

    def step(stage: str, after: tuple[str, ...] | None = None) -> Step:
        reads = None if after is None else tuple(map(declared, after))
        return Step(declared=declared(stage), label=stage, does="-", rejects="-", unit="-", after=reads)

    with pytest.raises(ValueError, match="not an earlier step"):
        Recipe("x", (step("a", ("b",)), step("b")))
    with pytest.raises(ValueError, match="listed twice"):
        Recipe("x", (step("a"), step("a")))
    chain = Recipe("x", (step("a", ()), step("b"), step("c", ("a",))))
    assert [chain.after(s) for s in chain.stages] == [(), ("a",), ("a",)]


def _readme_tables() -> list[list[str]]:
    """Stage names in the first column of each README table, in row order (``name@<month>`` -> name)."""
    tables: list[list[str]] = []
    current: list[str] | None = None
    for line in (ROOT / "README.md").read_text().splitlines():
        if not line.startswith("|"):
            current = None
            continue
        if current is None:
            current = []
            tables.append(current)
        first = line.split("|")[1]
        current += [name.split("@")[0] for name in re.findall(r"`([a-z_]+(?:@<month>)?)`", first)]
    return tables


@pytest.mark.parametrize("recipe", README_RECIPES, ids=lambda r: r.style)
def test_readme_stage_tables_list_the_steps_in_the_table_order(recipe: Recipe) -> None:
    listing = [[name for name in table if name in recipe.stages] for table in _readme_tables()]
    listing = [names for names in listing if len(names) >= 2]
    # Not vacuous: "What runs today" or the style's own section lists at least three of its steps.
    assert max(map(len, listing), default=0) >= 3, f"README lists too few of {recipe.style}'s steps"
    for names in listing:
        assert names == sorted(names, key=recipe.stages.index), names
