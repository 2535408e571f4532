"""foresight_validate: the validator role accepts or rejects each candidate question.

The validator must be a different model from the generator (a model grading its own questions is
lenient); the LLM layer warns when the configuration makes them the same. ``JudgeConfig`` (params
``foresight.judge``) configures this step and best-question selection (almanac.foresight.select).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.foresight.llm_tasks.validate import VALIDATE, ValidationVerdict, validate_item
from almanac.foresight.records import article_source, as_generated, question_id, questions_table
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import run_task

STAGE = "foresight_validate"


@dataclass(frozen=True)
class JudgeConfig:
    max_article_chars: int = 12000
    role: str = "validator"


def validate_questions(
    questions: pa.Table,
    articles: dict[str, dict[str, Any]],
    config: JudgeConfig,
    llm: LLMConfig,
    cache: LLMCache,
) -> tuple[pa.Table, StageLedger]:
    """Keep candidates the validator accepts; a rejected one is filed under its first failed criterion."""
    ledger = StageLedger(STAGE)
    all_rows = questions.to_pylist()
    # A candidate flagged at generation is rejected here, before any call.
    rows = [row for row in all_rows if not row["candidate_problem"]]
    items = []
    for row in rows:
        article = articles[row["article_id"]]
        items.append(
            validate_item(
                row["question_id"],
                as_generated(row),
                article["title"],
                article["text"],
                article["publish_date"],
                config.max_article_chars,
            )
        )
    results = iter(run_task(llm.role(config.role), VALIDATE, items, cache, ledger, llm.prompts_dir))

    def decide(row: dict[str, Any]) -> dict[str, Any] | Drop:
        if row["candidate_problem"]:
            reason, _, detail = row["candidate_problem"].partition(": ")
            return Drop(reason, detail)
        result = next(results)  # the results follow the unflagged rows in order
        if not result.ok:
            return result.failure()
        verdict = result.value
        assert isinstance(verdict, ValidationVerdict)
        if not verdict.valid:
            criteria = ", ".join(verdict.failed_criteria)
            reason = f"invalid_{verdict.failed_criteria[0]}" if verdict.failed_criteria else "invalid"
            return Drop(reason, f"failed: {criteria}; {verdict.reasons}"[:2000])
        return {**row, "validator_model": result.model}

    kept = apply_step(all_rows, Step(decide, question_id, article_source), ledger)
    if next(results, None) is not None:
        raise AssertionError("validate: more LLM results than unflagged questions")
    return questions_table(kept), ledger
