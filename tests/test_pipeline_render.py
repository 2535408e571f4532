"""The stage record and the renderer on small hand-made DAGs: what a stage's dvc.yaml entry says, and the
declarations the renderer refuses. Expected text written out by hand from the rules in almanac/pipeline."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from almanac.pipeline.code_stage import code_stage
from almanac.pipeline.declare import ITEM, Stage
from almanac.pipeline.render import code_files, problems, prompt_files, render, upstream

ROOT = Path(__file__).resolve().parents[1]


def _project(tmp_path: Path) -> Path:
    """A repository with two stage modules, one helper module, an unused module and a prompt (and stand-ins
    for the launcher and the fingerprint module code_hashes runs)."""
    (tmp_path / "stages").mkdir()
    (tmp_path / "almanac" / "tool").mkdir(parents=True)
    (tmp_path / "almanac" / "pipeline").mkdir(parents=True)
    (tmp_path / "prompts").mkdir()
    for launcher in ("stages/run.py", "almanac/pipeline/__init__.py", "almanac/pipeline/fingerprints.py"):
        (tmp_path / launcher).write_text("")
    for face in ("stages/__init__.py", "almanac/__init__.py"):
        (tmp_path / face).write_text('"""face"""\n')
    (tmp_path / "almanac/tool/__init__.py").write_text("")
    (tmp_path / "almanac/tool/helper.py").write_text("import json\n")
    (tmp_path / "almanac/tool/unused.py").write_text("")
    (tmp_path / "stages/make.py").write_text("def main():\n    from almanac.tool import helper\n")
    (tmp_path / "stages/use.py").write_text("import os\n")
    (tmp_path / "prompts/ask.md").write_text("x")
    (tmp_path / "prompts/repair.md").write_text("x")
    return tmp_path


MAKE = Stage(
    name="make",
    module="stages.make",
    foreach="months",
    reads=("${make.raw_dir}/${item}",),
    params=("make",),
    writes=(Path(f"data/made/{ITEM}.parquet"), Path(f"reports/metrics/make/{ITEM}.json")),
)
USE = Stage(
    name="use",
    module="stages.use",
    reads=("data/made",),
    tasks=("ask",),
    writes=(Path("data/used.parquet"), Path("reports/use.md")),
)


def test_a_stage_renders_its_fingerprint_reads_params_and_outs(tmp_path: Path) -> None:
    root = _project(tmp_path)
    text = render((code_stage((MAKE, USE)), MAKE, USE), metrics=(Path("reports/use.md"),), root=root)
    dvc = yaml.safe_load(text)
    assert list(dvc["stages"]) == ["code_hashes", "make", "use"]
    assert dvc["stages"]["code_hashes"] == {
        "cmd": "sh stages/python -m stages.run code_hashes almanac.pipeline.fingerprints:main",
        # the folders holding every stage's code files (almanac/tool/helper.py, prompts/ask.md, stages/*.py),
        # then params.yaml, which it copies to data/code/params.json
        "deps": ["almanac", "prompts", "stages", "params.yaml"],
        "outs": [
            {"data/code/make.sha256": {"cache": False, "persist": True}},
            {"data/code/use.sha256": {"cache": False, "persist": True}},
            {"data/code/params.json": {"cache": False, "persist": True}},
        ],
    }
    assert dvc["stages"]["make"] == {
        "foreach": "${months}",
        "do": {
            "cmd": "sh stages/python -m stages.make --month ${item}",
            "deps": ["data/code/make.sha256", "${make.raw_dir}/${item}"],
            "params": [{"data/code/params.json": ["make"]}],  # params.yaml's copy: JSON, one parse
            "outs": ["data/made/${item}.parquet", "reports/metrics/make/${item}.json"],
        },
    }
    assert dvc["stages"]["use"] == {
        "cmd": "sh stages/python -m stages.use",
        "deps": ["data/code/use.sha256", "data/made"],
        "outs": ["data/used.parquet", {"reports/use.md": {"cache": False}}],
    }
    # what the fingerprints hash: the closure, then the prompts
    assert code_files(MAKE, root) == ["almanac/tool/__init__.py", "almanac/tool/helper.py", "stages/make.py"]
    assert code_files(USE, root) == ["stages/use.py", "prompts/ask.md", "prompts/repair.md"]
    assert dvc["metrics"] == ["reports/use.md"]
    assert upstream(USE, (MAKE, USE)) == (MAKE,)  # data/made holds every month's made/<month>.parquet


def test_no_task_no_repair_prompt() -> None:
    assert prompt_files(MAKE) == []
    assert prompt_files(USE) == ["prompts/ask.md", "prompts/repair.md"]


def test_the_renderer_refuses_reads_no_stage_writes_and_missing_code(tmp_path: Path) -> None:
    root = _project(tmp_path)
    orphan = Stage(name="orphan", module="stages.gone", reads=("data/nowhere",), writes=(Path("data/o"),))
    selfish = Stage(name="selfish", module="stages.use", reads=("data/s/part",), writes=(Path("data/s"),))
    found = problems((MAKE, orphan, selfish), root)
    assert found == [
        "the first stage must be code_hashes, code_stage() of the others",
        "orphan: no module stages.gone",
        "orphan: reads data/nowhere, which no stage writes",
        "selfish: reads its own output data/s/part",
    ]
    with pytest.raises(ValueError, match="do not fit together"):
        render((orphan,), root=root)


def test_a_declaration_refuses_what_dvc_could_not_run() -> None:
    with pytest.raises(ValueError, match="per-month paths but runs once"):
        Stage(name="x", module="stages.x", writes=(Path(f"data/{ITEM}.parquet"),))
    with pytest.raises(ValueError, match="foreach"):
        Stage(name="x", module="stages.x", foreach="weeks", writes=(Path("data/x"),))
    with pytest.raises(ValueError, match="needs a function"):
        Stage(name="x", writes=(Path("data/x"),))  # neither a module nor a function
    with pytest.raises(ValueError, match=r"not package\.module:function"):
        Stage(name="x", module="stages.x", function="almanac_x", writes=(Path("data/x"),))
    # a stage module calls its function: the module runs, its closure holds the function's module
    called = Stage(name="x", module="stages.x", function="almanac.x:run", writes=(Path("data/x"),))
    assert (called.cmd, called.code_modules) == ("sh stages/python -m stages.x", ("stages.x",))


def test_a_function_stage_runs_through_the_launcher_and_depends_on_the_function_module() -> None:
    stage = Stage(name="x", function="almanac.core.ids:main", foreach="months", writes=(Path(f"d/{ITEM}"),))
    assert stage.cmd == "sh stages/python -m stages.run x almanac.core.ids:main --month ${item}"
    assert stage.code_modules == ("stages.run", "almanac.core.ids")


def test_the_launcher_calls_the_function_named_after_the_stage(tmp_path: Path) -> None:
    (tmp_path / "probe_stage.py").write_text(
        "import sys\ndef main():\n    print(sys.argv[0], sys.argv[1:])\n    return 3\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "stages.run", "probe", "probe_stage:main", "--month", "2025-05"],
        cwd=ROOT,
        env={"PYTHONPATH": f"{tmp_path}:{ROOT}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (run.returncode, run.stdout.strip()) == (3, "probe.py ['--month', '2025-05']")
    bad = subprocess.run(
        [sys.executable, "-m", "stages.run", "probe"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and "usage" in bad.stderr


def test_foresight_steps_read_and_write_what_their_declarations_say() -> None:
    """``read_questions(<declaration>, ...)`` names an upstream the stage's declaration reads;
    ``write_month(..., <declaration>, ...)`` names the stage's own declaration."""
    import ast

    from almanac.pipeline import foresight
    from almanac.pipeline.dag import BY_NAME, STEPS_BY_NAME

    checked = 0
    for name, declared in {**BY_NAME, **STEPS_BY_NAME}.items():  # the steps run inside foresight_month
        path = ROOT / (declared.function_module.replace(".", "/") + ".py")  # the stage's body
        if not name.startswith("foresight_") or not path.is_file():
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
                continue
            if node.func.id == "read_questions":
                assert isinstance(node.args[0], ast.Name), f"{name}: read_questions names no declaration"
                source: Stage = getattr(foresight, node.args[0].id)
                out = source.writes[0].as_posix()  # the file, or the folder of every month's files
                assert any(out == read or out.startswith(f"{read}/") for read in declared.reads), name
                checked += 1
            elif node.func.id == "write_month":
                assert isinstance(node.args[2], ast.Name), f"{name}: write_month names no declaration"
                assert getattr(foresight, node.args[2].id) is declared, name
                checked += 1
    assert checked == 12  # six per-month steps write; five of them and question_dedup read


def test_metrics_file_is_the_one_output_under_reports_metrics() -> None:
    assert MAKE.metrics_file("2025-05") == Path("reports/metrics/make/2025-05.json")
    with pytest.raises(ValueError, match="0 metrics files"):
        USE.metrics_file()
