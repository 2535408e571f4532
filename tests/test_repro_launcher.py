"""``make repro``'s launcher (almanac.core.repro): its summary line, its YAML memo and its direct params lookup."""

from __future__ import annotations

from typing import Any

from almanac.core.repro import ReproTally, lookup, memoised_parser


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
