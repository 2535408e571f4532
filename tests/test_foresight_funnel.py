"""The funnel, answer-type and split tables computed from stage metrics and split files."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from almanac.core.io import write_json, write_parquet
from almanac.reports.foresight_funnel import (
    OPENFORESIGHT_FUNNEL,
    answer_type_rows,
    funnel_markdown,
    funnel_metrics,
    split_rows,
)
from almanac.reports.funnel import FunnelStep, chained_funnel
from tests.support.questions import question, table

# --- funnel ---

MONTHS = ["2025-01", "2025-02"]
# stage -> per-month (items_in, items_out, rejected_by_reason, extra); None month = a global stage
FUNNEL_METRICS: dict[str, dict[str | None, tuple[int, int, dict[str, int], dict[str, int]]]] = {
    "foresight_qgen": {
        "2025-01": (10, 9, {"no_candidates": 1}, {"candidates": 27}),
        "2025-02": (5, 5, {}, {"candidates": 13}),
    },
    "foresight_validate": {
        "2025-01": (27, 12, {"invalid": 15}, {}),
        "2025-02": (13, 8, {"invalid": 3, "unparseable": 2}, {}),
    },
    "foresight_select": {
        "2025-01": (12, 10, {"no_good_question": 2}, {}),
        "2025-02": (8, 6, {"no_good_question": 2}, {}),
    },
    "foresight_leakage": {"2025-01": (10, 9, {"answer_in_text": 1}, {}), "2025-02": (6, 6, {}, {})},
    "foresight_answer_type": {
        "2025-01": (9, 7, {"disallowed_type": 2}, {}),
        "2025-02": (6, 4, {"disallowed_type": 2}, {}),
    },
    "foresight_dates": {"2025-01": (7, 7, {}, {}), "2025-02": (4, 3, {"unknown_date": 1}, {})},
    "foresight_question_dedup": {None: (10, 8, {"near_duplicate_question": 2}, {})},
    "foresight_split": {None: (8, 5, {"cross_question_leak": 1, "resolution_month_not_in_splits": 2}, {})},
}


def write_metrics(
    root: Path, overrides: dict[tuple[str, str | None], tuple[int, int, dict[str, int]]] | None = None
) -> None:
    for stage, months in FUNNEL_METRICS.items():
        for month, (items_in, items_out, by_reason, extra) in months.items():
            if overrides and (stage, month) in overrides:
                items_in, items_out, by_reason = overrides[(stage, month)]
            path = root / stage / f"{month}.json" if month else root / f"{stage}.json"
            write_json(
                {
                    "stage": stage,
                    "items_in": items_in,
                    "items_out": items_out,
                    "rejected": sum(by_reason.values()),
                    "rejected_by_reason": by_reason,
                    "seconds": 0.5,
                    "tokens": {"prompt": 3},
                    **extra,
                },
                path,
            )


def test_funnel_counts_and_shares(tmp_path: Path) -> None:
    write_metrics(tmp_path)
    rows = chained_funnel(OPENFORESIGHT_FUNNEL, MONTHS, tmp_path)
    assert [r["count"] for r in rows] == [40, 20, 16, 15, 11, 10, 8, 5]
    assert [r["share"] for r in rows] == [1.0, 0.5, 0.4, 0.375, 0.275, 0.25, 0.2, 0.125]
    assert (rows[0]["items_in"], rows[0]["items_out"], rows[0]["rejected"]) == (15, 14, 1)
    assert rows[1]["rejected_by_reason"] == {"invalid": 18, "unparseable": 2}
    assert rows[-1]["label"] == "Final set"

    markdown = funnel_markdown(rows, [], [])
    assert "| Source articles | 15 |" in markdown
    assert "| Question generation | 40 (100.0%) |" in markdown
    assert "| Fixing leakage | 15 (37.5%) |" in markdown
    assert "| Final set | 5 (12.5%) |" in markdown
    assert "| Validation | unparseable | 2 |" in markdown
    metrics = funnel_metrics(rows, [], [])
    assert (metrics["source_items"], metrics["generated"], metrics["final"], metrics["final_share"]) == (
        15,
        40,
        5,
        0.125,
    )


def test_funnel_chain_break_names_the_stage(tmp_path: Path) -> None:
    # select claims to have read 7 items in February while validate handed on 8
    write_metrics(tmp_path, {("foresight_select", "2025-02"): (7, 5, {"no_good_question": 2})})
    with pytest.raises(ValueError, match=r"stage foresight_select read 19 items .* handed on 20"):
        chained_funnel(OPENFORESIGHT_FUNNEL, MONTHS, tmp_path)


def test_funnel_validate_must_read_what_qgen_generated(tmp_path: Path) -> None:
    write_metrics(tmp_path, {("foresight_validate", "2025-02"): (12, 7, {"invalid": 5})})
    with pytest.raises(ValueError, match=r"foresight_validate read 39 .* foresight_qgen handed on 40"):
        chained_funnel(OPENFORESIGHT_FUNNEL, MONTHS, tmp_path)


def test_funnel_unbalanced_stage_and_missing_file(tmp_path: Path) -> None:
    write_metrics(tmp_path, {("foresight_dates", "2025-01"): (7, 6, {})})
    with pytest.raises(ValueError, match="foresight_dates: items_in=11 != items_out=9 \\+ rejected=1"):
        chained_funnel(OPENFORESIGHT_FUNNEL, MONTHS, tmp_path)
    with pytest.raises(FileNotFoundError, match="foresight_qgen"):
        chained_funnel(OPENFORESIGHT_FUNNEL[:1], ["2025-03"], tmp_path)


def test_funnel_with_a_custom_stage_list(tmp_path: Path) -> None:
    write_metrics(tmp_path)
    stages = [
        FunnelStep("foresight_question_dedup", "Dedup", per_month=False),
        FunnelStep("foresight_split", "Final", per_month=False),
    ]
    rows = chained_funnel(stages, [], tmp_path)
    # no producing stage: the base is the first stage's input
    assert [(r["count"], r["share"]) for r in rows] == [(8, 0.8), (5, 0.5)]


# --- answer types and splits ---


def test_answer_type_and_split_tables(tmp_path: Path) -> None:
    train = table(
        question("t1", date(2025, 1, 3), answer_class="name", split="train"),
        question("t2", date(2025, 1, 4), answer_class="name", split="train"),
        question("t3", date(2025, 2, 4), answer_class="name", split="train"),
        question("t4", date(2025, 2, 5), answer_class="location", split="train"),
    )
    test = table(
        question("s1", date(2025, 3, 3), answer_class="organization", split="test"),
        question("s2", date(2025, 3, 3), answer_class="organization", split="test"),
        question("s3", date(2025, 3, 3), answer_class="location", split="test"),
        question("s4", date(2025, 3, 3), answer_class="name", split="test"),
    )
    files = [tmp_path / "train.parquet", tmp_path / "test.parquet"]
    write_parquet(train, files[0])
    write_parquet(test, files[1])

    types = answer_type_rows(files)
    assert types == [
        {"answer_class": "name", "questions": 4, "share": 0.5},
        {"answer_class": "location", "questions": 2, "share": 0.25},
        {"answer_class": "organization", "questions": 2, "share": 0.25},
    ]
    splits = split_rows(files)
    assert splits == [
        {"split": "test", "resolution_month": "2025-03", "questions": 4},
        {"split": "train", "resolution_month": "2025-01", "questions": 2},
        {"split": "train", "resolution_month": "2025-02", "questions": 2},
    ]
    markdown = funnel_markdown([], types, splits)
    assert "| name | 4 | 50.0% |" in markdown
    assert "| Split | 2025-01 | 2025-02 | 2025-03 | Total |" in markdown
    assert "| train | 2 | 2 | 0 | 4 |" in markdown
    assert "| test | 0 | 0 | 4 | 4 |" in markdown
    metrics = funnel_metrics([], types, splits)
    assert metrics["answer_types"] == {"name": 4, "location": 2, "organization": 2}
    assert metrics["questions_by_split"] == {"test": 4, "train": 4}
