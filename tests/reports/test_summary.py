"""The style summary (the only DVC metrics) from hand-made inputs; every expected value worked out by hand."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from almanac.core.io import write_json
from almanac.reports.funnel import FunnelStep, funnel_steps, llm_usage
from almanac.reports.summary import build_summary, check_counts, funnel_counts, row_counts

# Tens of keys: one per split-month, funnel step, LLM counter and check count, never one per row or reason.
# The report fixtures (three months) stay well under it; the bundled sample's summaries have 19 to 25.
MAX_SUMMARY_KEYS = 40


def leaves(tree: Mapping[str, Any]) -> int:
    """How many values a nested mapping holds: the columns ``dvc metrics show`` prints for it."""
    return sum(leaves(value) if isinstance(value, Mapping) else 1 for value in tree.values())


CHECK = {
    "style": "x",
    "ok": False,
    "rows": 9,
    "invariants": {"ids_unique": {"checked": 9, "violations": 1}, "dates": {"checked": 7, "violations": 2}},
}


def test_summary_of_rows_funnel_llm_and_check() -> None:
    released = {"train": {"2025-01": 2, "2025-02": 3}, "test": {"2025-03": 4}}
    funnel = {
        "make": {"in": 20, "out": 12, "rejected": 8, "rejected_by_reason": {"bad": 8}},
        "keep": {"in": 12, "out": 9, "rejected": 3, "rejected_by_reason": {"dup": 3}},
    }
    llm = {"requests": 5, "refused": 1, "cost_usd": 0.25}
    assert build_summary(released, funnel, llm, CHECK) == {
        # train 2 + 3 = 5, test 4, all 9
        "rows": {"all": 9, "train": {"2025-01": 2, "2025-02": 3, "all": 5}, "test": {"2025-03": 4, "all": 4}},
        # the first step read 20; then what each step kept, in step order
        "funnel": {"00_in": 20, "01_make": 12, "02_keep": 9},
        "llm": {"requests": 5, "refused": 1, "cost_usd": 0.25},
        # 1 + 2 violations over the two invariants
        "check": {"ok": False, "rows": 9, "violations": 3},
    }


def test_funnel_keys_follow_the_steps_not_the_alphabet() -> None:
    funnel = {"zeta": {"in": 5, "out": 4}, "alpha": {"in": 4, "out": 1}}
    counts = funnel_counts(funnel)
    assert counts == {"00_in": 5, "01_zeta": 4, "02_alpha": 1}
    assert sorted(counts) == list(counts)  # sorted by name (JSON, dvc metrics show) is still step order
    assert funnel_counts({}) == {}


def test_no_check_report_leaves_the_check_out() -> None:
    summary = build_summary({}, {}, {}, None)
    assert summary == {"rows": {"all": 0}, "funnel": {}, "llm": {}}
    assert row_counts({"test": {}}) == {"all": 0, "test": {"all": 0}}
    assert check_counts({"ok": True, "rows": 0, "invariants": {}}) == {"ok": True, "rows": 0, "violations": 0}


def test_llm_usage_sums_every_role_month_and_step(tmp_path: Path) -> None:
    def metrics(items: int, llm: dict[str, float] | None) -> dict[str, object]:
        body: dict[str, object] = {
            "items_in": items,
            "items_out": items,
            "rejected": 0,
            "rejected_by_reason": {},
        }
        return body | ({"llm": llm} if llm is not None else {})

    # January from an older revision, with run-state counters (cache hits, calls) and a time: not summed.
    write_json(
        metrics(3, {"gen.requests": 3, "gen.calls": 2, "gen.cost_usd": 0.001, "gen.seconds": 9.5}),
        tmp_path / "ask" / "2025-01.json",
    )
    write_json(
        metrics(2, {"gen.requests": 2, "gen.refused": 1, "judge.requests": 1, "judge.prompt_tokens": 100,
                    "judge.completion_tokens": 7, "judge.cost_usd": 0.0025}),
        tmp_path / "ask" / "2025-02.json",
    )  # fmt: skip
    write_json(metrics(5, None), tmp_path / "count.json")  # a stage that asks no LLM
    steps = (FunnelStep("ask", "Ask", "items"), FunnelStep("count", "Count", "items", per_month=False))
    rows = funnel_steps(steps, ["2025-01", "2025-02"], tmp_path)
    assert set(rows[1]["llm"].values()) == {0}
    # requests 3 + 2 + 1 (two roles), refused 1, tokens 100 and 7, cost 0.001 + 0.0025
    assert llm_usage(rows) == {
        "requests": 6,
        "refused": 1,
        "prompt_tokens": 100,
        "completion_tokens": 7,
        "cost_usd": 0.0035,
    }
