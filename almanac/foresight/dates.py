"""Date checks: real start and resolution dates, clamped to the article; optional FutureSim date repair."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from almanac.core.months import month_start
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step, of_first
from almanac.foresight.date_parsing import (
    PARTIAL_DEADLINE_RULES,
    DatesOutcome,
    apply_date_repair,
    resolve_dates,
)
from almanac.foresight.llm_tasks.date_repair import DATE_REPAIR, DateRepair, date_repair_item
from almanac.foresight.records import article_source, as_generated, question_id, questions_table
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import run_task

STAGE = "foresight_dates"


@dataclass(frozen=True)
class DatesConfig:
    # Ask a role for the earliest date the answer could be inferred, and drop questions whose answer
    # was knowable before their month (FutureSim's repair); off by default, it costs one call each.
    date_repair: bool = False
    role: str = "editor"
    max_article_chars: int = 12000
    # A deadline written as a month or a year ("by July 2025"): "end" reads it as the last day of
    # that month or year (then clamps it to the article date as usual); "reject" drops the question.
    partial_deadline: str = "end"

    def __post_init__(self) -> None:
        if self.partial_deadline not in PARTIAL_DEADLINE_RULES:
            raise ValueError(
                f"dates.partial_deadline must be one of {list(PARTIAL_DEADLINE_RULES)}, "
                f"got {self.partial_deadline!r}"
            )


def check_dates(
    questions: pa.Table,
    articles: dict[str, dict[str, Any]],
    month: str,
    config: DatesConfig,
    llm: LLMConfig,
    cache: LLMCache,
) -> tuple[pa.Table, StageLedger]:
    ledger = StageLedger(STAGE)
    rows = questions.to_pylist()
    outcomes: list[DatesOutcome | Drop] = [
        resolve_dates(
            row["question_start_date_text"],
            row["resolution_date_text"],
            row["article_publish_date"].date(),
            config.partial_deadline,
        )
        for row in rows
    ]
    if config.date_repair:
        outcomes = _repair(rows, outcomes, articles, month, config, llm, cache, ledger)

    def decide(pair: tuple[dict[str, Any], DatesOutcome | Drop]) -> dict[str, Any] | Drop:
        row, outcome = pair
        if isinstance(outcome, Drop):  # a failed repair call
            return outcome
        if outcome.reason is not None:
            return Drop(outcome.reason, outcome.detail)
        return {
            **row,
            "question_start_date": outcome.start,
            "resolution_date": outcome.resolution,
            "resolution_date_clamped": outcome.clamped,
            "question_start_date_clamped": outcome.start_clamped,
            "question_start_date_text_precision": outcome.start_precision,
            "resolution_date_text_precision": outcome.resolution_precision,
        }

    kept = apply_step(
        zip(rows, outcomes, strict=True),
        Step(decide, of_first(question_id), of_first(article_source)),
        ledger,
    )
    ledger.extra["resolution_dates_clamped"] = sum(1 for row in kept if row["resolution_date_clamped"])
    ledger.extra["start_dates_clamped"] = sum(1 for row in kept if row["question_start_date_clamped"])
    ledger.extra["partial_deadlines_kept"] = sum(
        1 for row in kept if row["resolution_date_text_precision"] != "day"
    )
    return questions_table(kept), ledger


def _repair(
    rows: list[dict[str, Any]],
    outcomes: list[DatesOutcome | Drop],
    articles: dict[str, dict[str, Any]],
    month: str,
    config: DatesConfig,
    llm: LLMConfig,
    cache: LLMCache,
    ledger: StageLedger,
) -> list[DatesOutcome | Drop]:
    """Repair only questions that passed the plain checks (no call is spent on a rejected one); a
    failed repair call becomes the question's Drop."""
    todo = [
        index
        for index, outcome in enumerate(outcomes)
        if isinstance(outcome, DatesOutcome) and outcome.reason is None
    ]
    items = [
        date_repair_item(
            rows[index]["question_id"],
            as_generated(rows[index]),
            articles[rows[index]["article_id"]]["text"],
            rows[index]["article_publish_date"],
            config.max_article_chars,
        )
        for index in todo
    ]
    results = run_task(llm.role(config.role), DATE_REPAIR, items, cache, ledger, llm.prompts_dir)
    repaired: list[DatesOutcome | Drop] = list(outcomes)
    first_day = month_start(month).date()
    for index, result in zip(todo, results, strict=True):
        if not result.ok:
            repaired[index] = result.failure()
            continue
        value = result.value
        assert isinstance(value, DateRepair)
        outcome = outcomes[index]
        assert isinstance(outcome, DatesOutcome)
        repaired[index] = apply_date_repair(outcome, value.earliest_date, first_day)
    ledger.extra["date_repair_calls"] = len(items)
    return repaired
