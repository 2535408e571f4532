"""The OpenForesight question filter table: filters chain inside the answer-type stage's ledger, read
their settings from foresight.question_filters, and an unknown section is refused."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

import pytest

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop
from almanac.foresight.question_filters import QUESTION_FILTERS, QuestionFilter, apply_question_filters
from tests.support.questions import question, table

TITLES = {
    "q1": "Who will win the vote?",  # 5 words
    "q2": "Who will chair the new water board by June 2025?",  # 10 words
    "q3": "Which club will sign the striker?",  # 6 words, answer "Nobody"
    "q4": "Who will lead the inquiry into the Sava flood?",  # 9 words
}


@dataclass(frozen=True)
class MinWordsConfig:
    min_words: int = 6


def min_words(row: dict[str, Any], config: MinWordsConfig) -> dict[str, Any] | Drop:
    words = len(row["question_title"].split())
    return row if words >= config.min_words else Drop("question_too_short", f"{words} words")


@dataclass(frozen=True)
class NoBodyConfig:
    pass


def no_nobody(row: dict[str, Any], config: NoBodyConfig) -> dict[str, Any] | Drop:
    return Drop("answer_nobody", "the answer is 'Nobody'") if row["answer"] == "Nobody" else row


FILTERS = (
    QuestionFilter("min_words", MinWordsConfig, min_words),
    QuestionFilter("no_nobody", NoBodyConfig, no_nobody),
)


def _counted_in() -> tuple[Any, StageLedger]:
    """Four questions the answer-type step has counted in and kept (q2 and q4 answered by someone)."""
    rows = [
        question(qid, date(2025, 6, 30), title=title, answer="Nobody" if qid in ("q1", "q3") else "Jane Roe")
        for qid, title in TITLES.items()
    ]
    ledger = StageLedger("foresight_answer_type")
    ledger.items_in = ledger.items_out = 4
    return table(*rows), ledger


def test_no_filter_leaves_the_questions_and_the_counts_alone() -> None:
    questions, ledger = _counted_in()
    assert apply_question_filters(questions, {}, ledger, ()) is questions
    assert (ledger.items_in, ledger.items_out, ledger.rejects) == (4, 4, [])


def test_filters_run_in_order_and_count_each_question_in_once() -> None:
    questions, ledger = _counted_in()
    kept = apply_question_filters(questions, {}, ledger, FILTERS)
    assert kept.column("question_id").to_pylist() == ["q2", "q4"]
    # q1 (5 words) falls to the first filter, so the second sees only q2, q3, q4 and drops q3.
    assert [(reject.id, reject.reason) for reject in ledger.rejects] == [
        ("q1", "question_too_short"),
        ("q3", "answer_nobody"),
    ]
    metrics = ledger.metrics()  # asserts items_in == items_out + rejected
    assert (metrics["items_in"], metrics["items_out"], metrics["rejected"]) == (4, 2, 2)


def test_settings_come_from_the_filters_params_section() -> None:
    questions, ledger = _counted_in()
    kept = apply_question_filters(questions, {"min_words": {"min_words": 10}}, ledger, FILTERS[:1])
    assert kept.column("question_id").to_pylist() == ["q2"]  # the one title of 10 words
    assert ledger.rejected_by_reason == {"question_too_short": 3}


def test_a_section_for_no_filter_or_an_unknown_key_is_refused() -> None:
    questions, ledger = _counted_in()
    with pytest.raises(ValueError, match=r"no filter named \['min_wrods'\]"):
        apply_question_filters(questions, {"min_wrods": {"min_words": 3}}, ledger, FILTERS)
    with pytest.raises(ValueError, match="unknown keys"):
        apply_question_filters(questions, {"min_words": {"words": 3}}, ledger, FILTERS)


def test_every_filter_of_the_table_has_a_unique_name_and_a_dataclass_config() -> None:
    names = [entry.name for entry in QUESTION_FILTERS]
    assert len(set(names)) == len(names)
    for entry in QUESTION_FILTERS:
        entry.config()  # its defaults are valid settings
