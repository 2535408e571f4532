"""``make repro``'s launcher (almanac.core.repro): its summary line, its YAML memo and its direct params lookup."""

from __future__ import annotations

from typing import Any

from almanac.core.repro import HeldPaths, ReproTally, lookup, memoised_parser


def test_summary_of_a_no_op_is_one_line_with_the_stage_count() -> None:
    tally = ReproTally(considered=80)
    assert tally.summary(1.04) == "repro: nothing to do, 80 stages up to date (1.0 s)"


def test_summary_counts_stages_that_ran() -> None:
    tally = ReproTally(considered=5, ran=[("dedup", 2.0), ("corpus_stats", 0.5)])
    assert tally.summary(3.0) == "repro: 2 stages ran, 3 up to date (3.0 s)"
    assert ReproTally(considered=1, ran=[("dedup", 2.0)]).summary(2.0).startswith("repro: 1 stage ran,")


def test_memo_parses_each_text_once_and_hands_out_copies() -> None:
    calls: list[str] = []

    def parse(text: str, path: str, typ: str = "safe") -> Any:
        calls.append(text)
        return {"seed": int(text), "nested": {"months": ["2025-03"]}}

    parse_once = memoised_parser(parse)
    first = parse_once("7", "params.yaml")
    first["nested"]["months"].append("mutated by a caller")
    second = parse_once("7", "params.yaml")
    assert calls == ["7"]  # parsed once
    assert second == {"seed": 7, "nested": {"months": ["2025-03"]}}  # the caller's edit did not leak
    # An edited file (other text) is parsed again, as is the same text read with another parser type.
    assert parse_once("8", "params.yaml")["seed"] == 8
    parse_once("8", "params.yaml", typ="rt")
    assert calls == ["7", "8", "8"]
    # Only the latest text per file is kept: going back to "7" parses it again.
    parse_once("7", "params.yaml")
    assert calls == ["7", "8", "8", "7"]


def test_direct_param_lookup_gives_what_dpath_gives() -> None:
    import dpath
    import pytest

    config = {"a": {"b": {"c": 1}, "list": [{"x": 2}], "none": None}, "top": [1, 2]}
    for key in ("a", "a.b", "a.b.c", "a.list", "a.list.0.x", "a.none", "top", "top.1"):
        assert lookup(config, key) == dpath.get(config, key, separator="."), key
    for missing in ("b", "a.c", "a.b.c.d", "top.2", "a.list.x", "a.none.z"):
        with pytest.raises(KeyError):
            dpath.get(config, missing, separator=".")
        with pytest.raises(KeyError):
            lookup(config, missing)


def test_a_nested_lock_request_is_covered_only_by_what_is_held() -> None:
    held = HeldPaths()
    held.add(["deps/a", "deps/b"], ["outs/x"], 1)  # reproduce: read deps, write outs
    assert held.covers(["deps/a"], [])  # changed(): read deps
    assert held.covers(["deps/a", "outs/x"], [])  # read deps and outs: an out held for writing is read too
    assert held.covers([], ["outs/x"])  # save(): write outs
    assert not held.covers([], ["deps/a"])  # held for reading only: writing it takes the real lock
    assert not held.covers(["deps/c"], [])  # never held
    held.add(["deps/a", "deps/b"], ["outs/x"], -1)
    assert not held.covers(["deps/a"], []) and held == HeldPaths()


LOCK_TEXT = """\
schema: '2.0'
stages:
  make@2025-03:
    cmd: sh stages/python -m stages.make --month 2025-03
    deps:
    - path: data/code/make.sha256
      hash: md5
      md5: 0cc175b9c0f1b6a831c399e269772661
      size: 1
    params:
      data/code/params.json:
        make:
          cutoff: '2025-03-01'
          ratio: 0.5
          names:
          - yes
          - '010'
          - 'null'
    outs:
    - path: data/made/2025-03.parquet
      hash: md5
      md5: 92eb5ffee6ae2fec3ad71c777531578f
      size: 12
"""


def test_dumping_a_safe_parse_of_dvc_lock_gives_the_round_trip_bytes() -> None:
    """What makes the lock edit without ruamel's round trip safe: DVC's dumper wrote the lock, so dumping
    its safe parse gives the bytes the round trip gives (a date and numbers kept as strings; `yes` is a
    string in YAML 1.2, so DVC writes it bare). LOCK_TEXT is checked to be what DVC's dumper writes."""
    import io

    from dvc.utils.serialize._yaml import _dump, parse_yaml

    values = {"cutoff": "2025-03-01", "ratio": 0.5, "names": ["yes", "010", "null"]}
    assert parse_yaml(LOCK_TEXT, "dvc.lock")["stages"]["make@2025-03"]["params"]["data/code/params.json"] == {
        "make": values
    }
    for typ in ("safe", "rt"):
        stream = io.StringIO()
        _dump(parse_yaml(LOCK_TEXT, "dvc.lock", typ=typ), stream)
        assert stream.getvalue() == LOCK_TEXT, typ
