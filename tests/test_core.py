"""Core contracts: params parsing, IDs, atomic partition writes, the ledger balance check."""

from __future__ import annotations

import fnmatch
import hashlib
import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from almanac.core.ids import canonical_url, content_id, source_domain
from almanac.core.io import read_parquet_dir, remove_leftovers, write_json, write_month_partitions
from almanac.core.params import parse_section
from almanac.core.rejects import StageLedger


@dataclass(frozen=True)
class Inner:
    words: int = 100
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outer:
    path: str
    ratio: float = 0.5
    inner: Inner = field(default_factory=Inner)


def test_parse_section_builds_nested_frozen_config() -> None:
    params = {"outer": {"path": "x", "ratio": 1, "inner": {"words": 5, "names": ["a", "b"]}}}
    config = parse_section(Outer, params, "outer")
    assert config == Outer("x", 1.0, Inner(5, ("a", "b")))


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"path": "x", "ratoi": 0.2}, "unknown keys ['ratoi']"),
        ({"path": "x", "inner": {"word": 5}}, "unknown keys ['word']"),
        ({"ratio": 0.2}, "missing"),
        ({"path": "x", "inner": {"words": "many"}}, "must be int"),
    ],
)
def test_parse_section_rejects_typos_and_wrong_types(section: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_section(Outer, {"outer": section}, "outer")


def test_ids_are_stable_and_separate_parts() -> None:
    # The id must never change across versions, or every downstream id changes too: pin the recipe.
    assert content_id("a", "b") == hashlib.blake2b(b"a\x1fb", digest_size=16).hexdigest()
    assert content_id("ab", "c") != content_id("a", "bc")
    assert len(content_id("x")) == 32
    assert canonical_url("HTTPS://WWW.Example.COM:443/a/b?utm_source=x&z=1&a=2#frag") == (
        "https://www.example.com/a/b?a=2&z=1"
    )
    assert source_domain("https://www.news.example/x") == "news.example"


def test_month_partitions_include_empty_months_and_replace_old_files(tmp_path: Path) -> None:
    out = tmp_path / "articles"
    out.mkdir()
    (out / "stale.parquet").write_bytes(b"old")
    table = pa.table({"m": ["2025-05", "2025-05"], "v": [1, 2]})
    write_month_partitions(table, out, ["2025-04", "2025-05"], "m")
    assert sorted(p.name for p in out.iterdir()) == ["2025-04.parquet", "2025-05.parquet"]
    assert pq.read_table(out / "2025-04.parquet").num_rows == 0
    assert pq.read_table(out / "2025-05.parquet").column("v").to_pylist() == [1, 2]
    with pytest.raises(ValueError, match="not in scope"):
        write_month_partitions(table, out, ["2025-04"], "m")
    assert pq.read_table(out / "2025-05.parquet").num_rows == 2  # a failed write leaves the old folder


def test_ledger_refuses_unbalanced_counts() -> None:
    ledger = StageLedger("s", items_in=3, items_out=1)
    ledger.reject("a", "bad", "detail", "f:1")
    with pytest.raises(AssertionError, match="lost without a reject row"):
        ledger.metrics()
    ledger.reject("b", "bad", "detail", "f:2")
    assert ledger.metrics()["rejected_by_reason"] == {"bad": 2}


ROOT = Path(__file__).resolve().parents[1]
KILLED_WRITER = """
import os, signal, sys
import pyarrow as pa
from almanac.core.io import atomic_dir, atomic_path, write_parquet
target = sys.argv[2]
if sys.argv[1] == "file":
    with atomic_path(target) as temp:
        temp.write_bytes(b"half a file")
        os.kill(os.getpid(), signal.SIGKILL)
else:
    with atomic_dir(target) as staging:
        write_parquet(pa.table({"m": ["2025-05"], "v": [99]}), staging / "2025-05.parquet")
        os.kill(os.getpid(), signal.SIGKILL)
"""


def killed_write(kind: str, target: Path) -> list[Path]:
    """Run a writer in a child process that is killed mid-write; return what it left beside ``target``."""
    before = set(target.parent.iterdir()) if target.parent.exists() else set()
    child = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, kind, str(target)],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
    )
    assert child.returncode == -signal.SIGKILL, child.stderr
    return sorted(set(target.parent.iterdir()) - before)


def dvcignore_patterns() -> list[str]:
    lines = (ROOT / ".dvcignore").read_text().splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def test_temp_file_of_a_killed_write_is_ignored_by_dvc_and_removed_by_the_next_write(tmp_path: Path) -> None:
    target = tmp_path / "samples" / "task.json"  # e.g. one file of a directory output
    [leftover] = killed_write("file", target)
    assert leftover.read_bytes() == b"half a file" and not target.exists()
    # DVC (and git) must not see it while it is there: a directory output would read as modified.
    assert any(fnmatch.fnmatch(leftover.name, pattern) for pattern in dvcignore_patterns())
    write_json({"ok": 1}, target)
    assert sorted(p.name for p in target.parent.iterdir()) == ["task.json"]
    assert json.loads(target.read_text()) == {"ok": 1}


def test_staging_folder_of_a_killed_write_is_not_read_and_is_removed_by_the_next_write(
    tmp_path: Path,
) -> None:
    out = tmp_path / "corpus" / "articles"
    write_month_partitions(pa.table({"m": ["2025-05"], "v": [1]}), out, ["2025-05"], "m")
    [leftover] = killed_write("dir", out)
    assert leftover.is_dir() and (leftover / "2025-05.parquet").exists()
    assert any(fnmatch.fnmatch(leftover.name, pattern) for pattern in dvcignore_patterns())
    schema = pa.schema([("m", pa.string()), ("v", pa.int64())])
    # A reader of the parent folder takes the real partition only, not the dead staging copy (v=99).
    assert read_parquet_dir(tmp_path / "corpus", schema).column("v").to_pylist() == [1]
    write_month_partitions(pa.table({"m": ["2025-05"], "v": [2]}), out, ["2025-05"], "m")
    assert sorted(p.name for p in out.parent.iterdir()) == ["articles"]
    assert pq.read_table(out / "2025-05.parquet").column("v").to_pylist() == [2]


def test_leftover_cleanup_touches_only_dead_writers_of_the_same_target(tmp_path: Path) -> None:
    target = tmp_path / "out.parquet"
    [dead] = killed_write("file", target)
    prefix = dead.name.split("-")[:3]  # ".tmp", "almanac", "<host tag>"
    live = tmp_path / "-".join([*prefix, str(os.getpid()), "abc", "out.parquet"])  # a writer still running
    live.write_text("in progress")
    other = tmp_path / "-".join([*prefix, "999999999", "abc", "other.parquet"])  # another target
    other.write_text("not ours to judge")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    link = tmp_path / "-".join([*prefix, "999999998", "xyz", "out.parquet"])
    link.symlink_to(outside, target_is_directory=True)
    plain = tmp_path / ".out.parquet.abc.tmp"  # not our prefix: never touched
    plain.write_text("someone else's")
    removed = remove_leftovers(target)
    assert sorted(removed) == sorted([dead, link])
    assert live.exists() and other.exists() and plain.exists()
    assert not link.exists() and (outside / "keep.txt").read_text() == "keep"  # unlinked, not followed
