"""Question generation: each article -> up to N candidate forecasting questions (generator role)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
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
    # Trial runs: at most this many articles of the month are sent to the generator, a seeded sample
    # (the same articles on every run of the same seed); the rest are rejects (``not_sampled``), counted
    # in the funnel and shown in the card. 0 = every article (the default).
    max_articles_per_month: int = 0
    sample_seed: int = 1


def sampled_article_ids(ids: list[str], limit: int, seed: int) -> set[str]:
    """The ``limit`` ids whose seeded content hash is smallest: a sample that does not depend on the
    order of the rows, keeps an article chosen as long as the seed and the month's ids are the same, and
    is every id when ``limit`` is 0 or not below their number."""
    if limit <= 0 or limit >= len(ids):
        return set(ids)
    ranked = sorted(ids, key=lambda article_id: (content_id(str(seed), article_id), article_id))
    return set(ranked[:limit])


def generate_questions(
    articles: pa.Table, config: QgenConfig, llm: LLMConfig, cache: LLMCache
) -> tuple[pa.Table, StageLedger]:
    """Items are articles: one that yields no usable question is a reject row, with the reason."""
    ledger = StageLedger(STAGE)
    every_row = articles.to_pylist()
    ids = [str(row["id"]) for row in every_row]
    sampled = sampled_article_ids(ids, config.max_articles_per_month, config.sample_seed)
    rows = [row for row in every_row if str(row["id"]) in sampled]
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
    asked = run_task(llm.role(config.role), QGEN, items, cache, ledger, llm.prompts_dir)
    by_id = {str(row["id"]): result for row, result in zip(rows, asked, strict=True)}
    results = [by_id.get(article_id) for article_id in ids]  # None: not in the trial sample
    over_limit = 0

    def decide(pair: tuple[dict[str, Any], TaskResult[Any] | None]) -> list[dict[str, Any]] | Drop:
        nonlocal over_limit
        article, result = pair
        if result is None:
            limit = config.max_articles_per_month
            return Drop("not_sampled", f"max_articles_per_month={limit}: not in the month's seeded sample")
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
    questions = apply_producing_step(zip(every_row, results, strict=True), step, ledger, PRODUCES)
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
