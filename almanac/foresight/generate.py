"""Question generation: each article -> up to N candidate forecasting questions (generator role)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_producing_step
from almanac.foresight.date_parsing import date_text_problem
from almanac.foresight.llm_tasks.qgen import QGEN, qgen_item
from almanac.foresight.llm_tasks.questions import GeneratedQuestion, UnusableCandidate
from almanac.foresight.records import question_row, questions_table
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import TaskResult, run_task

STAGE = "foresight_qgen"


# The metrics key the funnel reads as this step's count: the recipe's ``produces`` (tests/test_recipes.py
# keeps the two equal; reading the recipe here would make qgen depend on every stage declaration).
PRODUCES = "candidates"


@dataclass(frozen=True)
class QgenConfig:
    questions_per_article: int = 3  # OpenForesight asked for three diverse questions per article
    max_article_chars: int = 12000  # long articles are cut (at a word) to bound prompt cost
    role: str = "generator"


def generate_questions(
    articles: pa.Table, config: QgenConfig, llm: LLMConfig, cache: LLMCache
) -> tuple[pa.Table, StageLedger]:
    """Items are articles: one that yields no usable question is a reject row, with the reason."""
    ledger = StageLedger(STAGE)
    rows = articles.to_pylist()
    items = [
        qgen_item(
            row["id"],
            row["title"],
            row["text"],
            row["publish_date"],
            row["source_domain"],
            config.questions_per_article,
            config.max_article_chars,
        )
        for row in rows
    ]
    results = run_task(llm.role(config.role), QGEN, items, cache, ledger, llm.prompts_dir)
    over_limit = 0

    def decide(pair: tuple[dict[str, Any], TaskResult[Any]]) -> list[dict[str, Any]] | Drop:
        nonlocal over_limit
        article, result = pair
        if not result.ok:
            return result.failure()
        generated = result.value or []
        over_limit += max(0, len(generated) - config.questions_per_article)
        kept: dict[str, dict[str, Any]] = {}
        for index, candidate in enumerate(generated[: config.questions_per_article]):
            question, problem = candidate_problem(candidate)
            row = question_row(article, index, question, result, problem)
            kept.setdefault(row["question_id"], row)  # the same title+answer twice counts once
        if not kept:
            return Drop("no_question", "the generator found no forecastable event")
        return list(kept.values())

    step = Step(decide, lambda pair: str(pair[0]["id"]), lambda pair: f"article:{pair[0]['id']}")
    questions = apply_producing_step(zip(rows, results, strict=True), step, ledger, PRODUCES)
    problems = [row["candidate_problem"] for row in questions if row["candidate_problem"]]
    ledger.extra.update({"candidates_over_limit": over_limit, "candidates_with_problem": len(problems)})
    return questions_table(questions), ledger


def candidate_problem(
    candidate: GeneratedQuestion | UnusableCandidate,
) -> tuple[GeneratedQuestion, str | None]:
    """The candidate's fields and, when it cannot be used, ``"<reason>: <detail>"``.

    A malformed block, or a start or resolution date that is neither a day, a month nor a year
    ("UNKNOWN", "soon"), marks only this candidate; the validate stage rejects it before any call.
    """
    if isinstance(candidate, UnusableCandidate):
        return candidate.question, f"{candidate.reason}: {candidate.detail}"
    for field, text in (("start", candidate.question_start_date), ("resolution", candidate.resolution_date)):
        found = date_text_problem(text, field)
        if found is not None:
            return candidate, f"{found[0]}: {found[1]}"
    return candidate, None
