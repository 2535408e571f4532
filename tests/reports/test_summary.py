"""The style summary (the only DVC metrics) from hand-made inputs; every expected value worked out by hand."""

from __future__ import annotations

from pathlib import Path

from almanac.core.io import write_json
from almanac.reports.funnel import FunnelStep, funnel_metrics, funnel_steps, llm_usage
from almanac.reports.summary import SUMMARY_KEYS, build_summary, check_verdict

# `dvc metrics show` prints one column per key over every style's summary: the issue asks for <= 12.
MAX_SUMMARY_KEYS = 9  # SUMMARY_KEYS: check, read, released, three splits, three LLM counters

CHECK = {
    "style": "x",
    "ok": False,
    "rows": 9,
    "invariants": {"ids_unique": {"checked": 9, "violations": 1}, "dates": {"checked": 7, "violations": 2}},
}


def test_summary_of_rows_funnel_llm_and_check() -> None:
    released = {"train": {"2025-01": 2, "2025-02": 3}, "test": {"2025-03": 4}}
    funnel = {
        "make": {"unit": "articles", "in": 20, "out": 12, "rejected": 8, "rejected_by_reason": {"bad": 8}},
        "keep": {"unit": "questions", "in": 12, "out": 9, "rejected": 3, "rejected_by_reason": {"dup": 3}},
    }
    llm = {"requests": 5, "refused": 1, "prompt_tokens": 300, "completion_tokens": 40, "cost_usd": 0.25}
    summary = build_summary(released, funnel, llm, CHECK, "questions")
    assert summary == {
        "check": "3 violations",  # 1 + 2 over the two invariants
        "read": "20 articles",  # the first step's input, in its unit
        "released": "9 questions",  # train 2 + 3, test 4, in the style's row unit
        "train": 5,
        "validation": 0,  # no validation split: a zero, so every style has the same columns
        "test": 4,
        "llm_requests": 5,
        "llm_tokens": 340,  # 300 prompt + 40 completion
        "llm_cost_usd": 0.25,
    }
    assert tuple(summary) == SUMMARY_KEYS and len(SUMMARY_KEYS) <= 12
    assert all(not isinstance(value, dict) for value in summary.values())  # one column per key


def test_large_counts_read_with_separators_and_unknown_splits_are_refused() -> None:
    funnel = {
        "download": {"unit": "files", "in": 48, "out": 48},
        "split": {"unit": "queries", "in": 9, "out": 9},
    }
    summary = build_summary({"test": {"2025-04": 1200, "2025-05": 34}}, funnel, {}, None, "queries")
    assert (summary["read"], summary["released"], summary["check"]) == (
        "48 files",
        "1,234 queries",
        "not run",
    )
    assert (summary["llm_requests"], summary["llm_tokens"], summary["llm_cost_usd"]) == (0, 0, 0.0)
    try:
        build_summary({"dev": {"2025-04": 1}}, funnel, {}, None)
    except ValueError as error:
        assert "dev" in str(error)
    else:
        raise AssertionError("a split outside train/validation/test must not vanish from the summary")


def test_no_funnel_and_no_check() -> None:
    summary = build_summary({}, {}, {}, None)
    assert (summary["read"], summary["released"], summary["check"]) == ("nothing", "0 rows", "not run")
    assert check_verdict({"ok": True, "rows": 0, "invariants": {}}) == "ok"
    assert check_verdict({"ok": False, "rows": 3, "invariants": {}}) == "failed"


def test_funnel_metrics_name_units_and_what_a_producing_step_made() -> None:
    rows = [
        {"stage": "qgen", "unit": "articles", "items_in": 30, "items_out": 13, "rejected": 17,
         "rejected_by_reason": {"no_question": 17}, "produced": 19},
        {"stage": "validate", "unit": "questions", "items_in": 19, "items_out": 18, "rejected": 1,
         "rejected_by_reason": {"invalid": 1}, "produced": None},
    ]  # fmt: skip
    metrics = funnel_metrics(rows)
    # 30 articles read, 13 of them gave at least one question, 19 questions in all: validate reads the 19
    assert metrics["qgen"] == {
        "unit": "articles",
        "in": 30,
        "out": 13,
        "rejected": 17,
        "rejected_by_reason": {"no_question": 17},
        "made": 19,
        "made_unit": "questions",
    }
    assert metrics["validate"]["unit"] == "questions" and "made" not in metrics["validate"]


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
