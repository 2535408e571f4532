"""Validation of each candidate and best-of-article selection, by the validator role.

The validator must be a different model from the generator (a model grading its own questions is
lenient); the LLM layer warns when the configuration makes them the same.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, GroupStep, Step, apply_group_step, apply_step
from almanac.foresight.llm_tasks.select_best import SELECT_BEST, BestChoice, select_best_item
from almanac.foresight.llm_tasks.validate import VALIDATE, ValidationVerdict, validate_item
from almanac.foresight.records import article_source, as_generated, question_id, questions_table
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import run_task

VALIDATE_STAGE = "foresight_validate"
SELECT_STAGE = "foresight_select"


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
    ledger = StageLedger(VALIDATE_STAGE)
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


def select_best(
    questions: pa.Table,
    articles: dict[str, dict[str, Any]],
    config: JudgeConfig,
    llm: LLMConfig,
    cache: LLMCache,
) -> tuple[pa.Table, StageLedger]:
    """One question per article: a lone valid one is kept as is, several go to the validator to choose.

    A group rule over the questions of each article: the validator's choice survives, the others are
    rejected as ``not_selected`` naming it; a failed or empty choice refuses the whole group.
    """
    ledger = StageLedger(SELECT_STAGE)
    by_article: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in questions.to_pylist():
        by_article[row["article_id"]].append(row)
    contested = {article_id: group for article_id, group in by_article.items() if len(group) > 1}
    items = [
        select_best_item(
            article_id,
            [as_generated(row) for row in group],
            articles[article_id]["title"],
            articles[article_id]["text"],
            articles[article_id]["publish_date"],
            config.max_article_chars,
        )
        for article_id, group in contested.items()
    ]
    results = run_task(llm.role(config.role), SELECT_BEST, items, cache, ledger, llm.prompts_dir)
    choices = dict(zip(contested, results, strict=True))

    def choose(group: Sequence[dict[str, Any]]) -> int | Drop:
        result = choices.get(group[0]["article_id"])
        if result is None:  # a lone question
            return 0
        if not result.ok:
            return Drop(result.error, result.detail)
        choice = result.value
        assert isinstance(choice, BestChoice)
        if choice.index is None or not 0 <= choice.index < len(group):
            return Drop("no_good_question", choice.reasons[:2000])
        return choice.index

    def outranked(loser: dict[str, Any], _best: dict[str, Any]) -> Drop:
        choice = choices[loser["article_id"]].value
        assert isinstance(choice, BestChoice)
        return Drop("not_selected", choice.reasons[:2000])

    # Lone questions first, then the contested articles' questions: the order the table is written in.
    ordered = [group[0] for group in by_article.values() if len(group) == 1]
    ordered += [row for group in contested.values() for row in group]
    step = GroupStep(_article_of, choose, outranked, question_id, article_source)
    kept = apply_group_step(ordered, step, ledger)
    ledger.extra.update(
        {"articles_single_valid": len(by_article) - len(contested), "articles_contested": len(contested)}
    )
    return questions_table(kept), ledger


def _article_of(row: dict[str, Any]) -> str:
    return str(row["article_id"])
