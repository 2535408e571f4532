"""Leakage fixing: the editor role rewrites revealing spans, then deterministic passes decide.

The LLM pass may change the background, the resolution criteria and the title's outcome details (a
title edit that loses a date the title names is ignored; answer and dates cannot change). Then, on
every backend, a rule pass removes outcome details from the title (almanac.core.outcomes: "up from
29", "by 14 votes to 9", counts), and whatever is missed the string re-scan catches: a question whose
text still contains the answer (exactly, folded, as an alias, a distinctive part or fuzzily) is dropped,
with the kind of match as the reason, and so is a title that still states an outcome phrase.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from almanac.core.outcomes import outcome_phrases, strip_outcomes
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step, of_first
from almanac.foresight.answer_types import declared_answer_class
from almanac.foresight.leakage_scan import LeakageScanConfig, find_leak
from almanac.foresight.llm_tasks.leakage import LEAKAGE, LeakageEdit, leakage_item
from almanac.foresight.records import article_source, as_generated, question_id, questions_table
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import TaskResult, run_task

STAGE = "foresight_leakage"


@dataclass(frozen=True)
class LeakageConfig:
    role: str = "editor"
    scan: LeakageScanConfig = field(default_factory=LeakageScanConfig)


def fix_leakage(
    questions: pa.Table, config: LeakageConfig, llm: LLMConfig, cache: LLMCache
) -> tuple[pa.Table, StageLedger]:
    ledger = StageLedger(STAGE)
    rows = questions.to_pylist()
    items = [leakage_item(row["question_id"], as_generated(row)) for row in rows]
    results = run_task(llm.role(config.role), LEAKAGE, items, cache, ledger, llm.prompts_dir)
    edited = 0
    ledger.count("title_outcomes_removed", "editor", 0)
    ledger.count("title_outcomes_removed", "rule_pass", 0)

    def decide(pair: tuple[dict[str, Any], TaskResult[Any]]) -> dict[str, Any] | Drop:
        nonlocal edited
        row, result = pair
        if not result.ok:
            return result.failure()
        edit = result.value
        assert isinstance(edit, LeakageEdit)
        if edit.leak_found:
            edited += 1
            if edit.question_title:
                ledger.count("title_outcomes_removed", "editor")
            row = {
                **row,
                "question_title": edit.question_title or row["question_title"],
                "background": edit.background,
                "resolution_criteria": edit.resolution_criteria,
                "leakage_edited": True,
            }
        else:
            row = {**row, "leakage_edited": False}
        title = strip_outcomes(row["question_title"])
        if title != row["question_title"]:
            row = {**row, "question_title": title, "leakage_edited": True}
            ledger.count("title_outcomes_removed", "rule_pass")
        left = outcome_phrases(title)
        if left:
            return Drop("title_outcome", f"title still states {left[0]!r}")
        texts = {name: row[name] for name in config.scan.fields}
        # The declared type is enough to pick aliases (surname, acronym); classification comes later.
        answer_class = declared_answer_class(row["answer"], row["answer_type"])
        hit = find_leak(row["answer"], texts, answer_class, config.scan)
        if hit is not None:
            detail = f"{hit.field} still contains {hit.matched!r} for answer {row['answer']!r}"
            return Drop(f"answer_leak_{hit.kind}", detail)
        return row

    kept = apply_step(
        zip(rows, results, strict=True), Step(decide, of_first(question_id), of_first(article_source)), ledger
    )
    ledger.extra["edited_by_llm"] = edited
    return questions_table(kept), ledger
