"""Split assignment: months, source-disjoint test, the train-before-test guard, cross-question leakage."""

from __future__ import annotations

import random
from datetime import date
from typing import Any

import pyarrow as pa
import pytest

from almanac.core.rejects import StageLedger
from almanac.core.text import contains_phrase
from almanac.foresight.schema import QUESTION_SCHEMA
from almanac.foresight.split import SplitConfig, assign_splits, cross_question_leaks, guard_train_before_test
from tests.support.questions import question, table

# The month rules alone; the source-disjoint test (on by default) has tests of its own below.
CONFIG = SplitConfig(
    train_months=("2025-01",),
    validation_months=("2025-02",),
    test_months=("2025-03",),
    source_disjoint_test=False,
)


def reasons(ledger: StageLedger) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for reject in ledger.rejects:
        found.setdefault(reject.reason, []).append(reject.id)
    return {reason: sorted(ids) for reason, ids in found.items()}


# --- config validation ---


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"train_months": ("2025-01",), "validation_months": ("2025-01",)}, "both train and validation"),
        ({"train_months": ("2025-04",), "test_months": ("2025-03",)}, "not strictly before"),
        ({"validation_months": ("2025-03",), "test_months": ("2025-02", "2025-05")}, "not strictly before"),
        ({"train_months": ("2025-1",)}, "month must look like"),
        ({"cross_question_leakage": "keep"}, "cross_question_leakage"),
    ],
)
def test_split_config_rejects_bad_months_and_modes(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SplitConfig(**kwargs)


def test_split_config_accepts_ordered_months() -> None:
    config = SplitConfig(("2024-11", "2024-12"), ("2025-01",), ("2025-02", "2025-03"))
    assert config.test_start() == date(2025, 2, 1)
    assert SplitConfig(train_months=("2025-01",)).test_start() is None


# --- assignment by month and source ---


def test_assigns_split_by_resolution_month_and_rejects_other_months() -> None:
    ledger = StageLedger("foresight_split")
    out = assign_splits(
        table(
            question("t2", date(2025, 3, 20)),
            question("tr", date(2025, 1, 31)),
            question("va", date(2025, 2, 1)),
            question("t1", date(2025, 3, 2)),
            question("late", date(2025, 4, 1)),
            question("early", date(2024, 12, 31)),
            question("nodate", None),
        ),
        CONFIG,
        ledger,
    )
    # sorted by split name, then resolution date, then id
    assert out.column("question_id").to_pylist() == ["t1", "t2", "tr", "va"]
    assert out.column("split").to_pylist() == ["test", "test", "train", "validation"]
    assert out.column("cross_question_leak").to_pylist() == [False] * 4
    assert reasons(ledger) == {
        "resolution_month_not_in_splits": ["early", "late"],
        "resolution_date_missing": ["nodate"],
    }
    assert (ledger.items_in, ledger.items_out) == (7, 4)
    ledger.check_balance()
    assert ledger.extra["questions_by_split"] == {"test": 2, "train": 1, "validation": 1}
    assert out.schema == QUESTION_SCHEMA


def test_source_disjoint_test_split() -> None:
    config = SplitConfig(
        train_months=("2025-01",), validation_months=("2025-02",), test_months=("2025-03",),
        test_sources=("theguardian.com",),
    )  # fmt: skip
    ledger = StageLedger("foresight_split")
    out = assign_splits(
        table(
            question("test_ok", date(2025, 3, 5), source="theguardian.com"),
            question("test_other", date(2025, 3, 5), source="bbc.co.uk"),
            question("train_ok", date(2025, 1, 5), source="bbc.co.uk"),
            question("train_guardian", date(2025, 1, 5), source="theguardian.com"),
            question("val_guardian", date(2025, 2, 5), source="theguardian.com"),
        ),
        config,
        ledger,
    )
    assert sorted(out.column("question_id").to_pylist()) == ["test_ok", "train_ok"]
    assert reasons(ledger) == {
        "source_not_in_test_sources": ["test_other"],
        "test_source_in_train": ["train_guardian", "val_guardian"],
    }
    ledger.check_balance()


def test_test_outlets_are_derived_by_default() -> None:
    # Test months: a (1 train question), b (2 train, 1 validation), c (none elsewhere: naturally disjoint),
    # d (3 train). Share 0.5 of 4 outlets = 2: c (free), then the cheapest, a.
    config = SplitConfig(train_months=("2025-01",), validation_months=("2025-02",), test_months=("2025-03",))
    rows = [
        question("test_a", date(2025, 3, 5), source="a.example"),
        question("test_b", date(2025, 3, 5), source="b.example"),
        question("test_c", date(2025, 3, 6), source="c.example"),
        question("test_d", date(2025, 3, 7), source="d.example"),
        question("train_a", date(2025, 1, 5), source="a.example"),
        question("train_b1", date(2025, 1, 5), source="b.example"),
        question("train_b2", date(2025, 1, 6), source="b.example"),
        question("val_b", date(2025, 2, 5), source="b.example"),
        *(question(f"train_d{i}", date(2025, 1, 7 + i), source="d.example") for i in range(3)),
    ]
    ledger = StageLedger("foresight_split")
    out = assign_splits(table(*rows), config, ledger)
    assert ledger.extra["test_sources"] == {"a.example": 1, "c.example": 1}
    kept = dict(zip(out.column("question_id").to_pylist(), out.column("split").to_pylist(), strict=True))
    assert sorted(question_id for question_id, split in kept.items() if split == "test") == [
        "test_a",
        "test_c",
    ]
    assert reasons(ledger) == {
        "source_not_in_test_sources": ["test_b", "test_d"],
        "test_source_in_train": ["train_a"],
    }
    ledger.check_balance()


def test_a_zero_share_keeps_only_naturally_disjoint_outlets() -> None:
    config = SplitConfig(
        train_months=("2025-01",), validation_months=("2025-02",), test_months=("2025-03",),
        test_source_share=0.0,
    )  # fmt: skip
    ledger = StageLedger("foresight_split")
    rows = [
        question("test_a", date(2025, 3, 5), source="a.example"),
        question("train_a", date(2025, 1, 5), source="a.example"),
    ]
    out = assign_splits(table(*rows), config, ledger)
    # Every test outlet also trains: no test question is left, rather than a test that shares an outlet.
    assert out.column("question_id").to_pylist() == ["train_a"]
    assert "test_sources" not in ledger.extra
    assert reasons(ledger) == {"source_not_in_test_sources": ["test_a"]}


def test_guard_drops_train_and_validation_resolving_on_or_after_test_start() -> None:
    rows = table(
        question("train_before", date(2025, 2, 28), split="train"),
        question("train_on", date(2025, 3, 1), split="train"),
        question("val_after", date(2025, 3, 9), split="validation"),
        question("test_after", date(2025, 3, 9), split="test"),
    )
    ledger = StageLedger("foresight_split")
    kept = guard_train_before_test(rows, date(2025, 3, 1), ledger)
    assert kept.column("question_id").to_pylist() == ["train_before", "test_after"]
    assert reasons(ledger) == {"train_resolves_after_test_start": ["train_on", "val_after"]}
    assert "2025-03-01" in ledger.rejects[0].detail
    # without test months there is nothing to guard
    assert guard_train_before_test(rows, None, StageLedger("s")).num_rows == 4


# --- cross-question leakage ---


def leak_row(
    qid: str, answer: str, title: str = "", background: str = "", criteria: str = ""
) -> dict[str, str]:
    return {
        "question_id": qid,
        "answer": answer,
        "question_title": title,
        "background": background,
        "resolution_criteria": criteria,
    }


def test_cross_question_leaks_folded_whole_words() -> None:
    leaks = cross_question_leaks(
        [
            leak_row("b", "Dvořák", title="Who will conduct?"),
            leak_row("a", "Prague", background="Critics praised DVORAK's symphony."),
            leak_row("p", "Paris", title="Which city will host?"),
            leak_row("q", "Lyon", background="A Parisian firm bid for the games."),
            leak_row("ny", "New York", criteria="Resolves to the city of the new-york office."),
            leak_row("self", "Rome", title="Will Rome host the summit?"),
            leak_row("c", "Berlin", criteria="prague-based and dvořák"),
        ]
    )
    # "ny" reveals its own answer only: not a cross-question leak; "Paris" is not in "Parisian".
    assert leaks == {"b": ["a", "c"], "a": ["c"]}


def test_cross_question_leaks_do_not_span_two_fields() -> None:
    leaks = cross_question_leaks(
        [
            leak_row("b", "New York"),
            leak_row("a", "x", title="Will it move to New", background="York soon?"),
        ]
    )
    assert leaks == {}


def test_cross_question_leaks_match_pairwise_contains_phrase() -> None:
    rng = random.Random(7)
    vocabulary = ["Paris", "parisian", "São", "Paulo", "sao", "new", "york", "FC", "ÉLYSÉE", "elysee", "x"]

    def text() -> str:
        return " ".join(rng.choice(vocabulary) + rng.choice(["", ",", "'s", "-"]) for _ in range(6))

    rows = [
        leak_row(f"q{i}", " ".join(rng.choices(vocabulary, k=rng.randint(1, 3))), text(), text(), text())
        for i in range(60)
    ]
    expected: dict[str, list[str]] = {}
    for b in rows:
        others = sorted(
            a["question_id"]
            for a in rows
            if a is not b
            and any(
                contains_phrase(a[name], b["answer"])
                for name in ("question_title", "background", "resolution_criteria")
            )
        )
        if others:
            expected[b["question_id"]] = others
    assert expected  # the vocabulary is small enough that leaks do occur
    assert cross_question_leaks(rows) == expected


def leaky_questions() -> pa.Table:
    return table(
        question("b", date(2025, 3, 3), answer="Keir Starmer", title="Who will lead the talks by March?"),
        question("a", date(2025, 3, 9), answer="Oslo", background="keir starmer said talks would follow."),
        question("c", date(2025, 1, 9), answer="Leeds", background="Keir Starmer visited Leeds."),
        question("d", date(2025, 1, 20), answer="Madrid", title="Where will the final be?"),
    )


def test_cross_question_leak_drop_mode_rejects_revealed_question_within_split() -> None:
    ledger = StageLedger("foresight_split")
    out = assign_splits(leaky_questions(), CONFIG, ledger)
    # "c" (train) also contains Starmer's name, but leaks only count inside one split;
    # "c" reveals its own answer "Leeds", which is the leakage stage's business, not this one.
    assert sorted(out.column("question_id").to_pylist()) == ["a", "c", "d"]
    assert out.column("cross_question_leak").to_pylist() == [False, False, False]
    [reject] = ledger.rejects
    assert (reject.id, reject.reason, reject.related_id) == ("b", "cross_question_leak", "a")
    assert "'Keir Starmer'" in reject.detail
    assert ledger.extra["cross_question_leaks"] == 1
    ledger.check_balance()


def test_cross_question_leak_flag_mode_keeps_and_flags() -> None:
    ledger = StageLedger("foresight_split")
    config = SplitConfig(
        ("2025-01",), ("2025-02",), ("2025-03",), cross_question_leakage="flag", source_disjoint_test=False
    )
    out = assign_splits(leaky_questions(), config, ledger)
    ids = out.column("question_id").to_pylist()
    flags = dict(zip(ids, out.column("cross_question_leak").to_pylist(), strict=True))
    assert flags == {"a": False, "b": True, "c": False, "d": False}
    assert ledger.rejects == []
    assert (ledger.items_in, ledger.items_out) == (4, 4)
