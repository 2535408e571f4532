"""Core contracts: params parsing, IDs, atomic partition writes, the ledger balance check."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from almanac.core.ids import canonical_url, content_id, source_domain
from almanac.core.io import write_month_partitions
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
        ledger.metrics(0.0)
    ledger.reject("b", "bad", "detail", "f:2")
    assert ledger.metrics(0.0)["rejected_by_reason"] == {"bad": 2}
