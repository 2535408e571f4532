"""foresight_select: one question per article; a lone valid one is kept, several go to the validator.

Configured by ``JudgeConfig`` (params ``foresight.judge``, shared with almanac.foresight.validate).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, GroupStep, apply_group_step
from almanac.foresight.llm_tasks.select_best import SELECT_BEST, BestChoice, select_best_item
from almanac.foresight.records import article_source, as_generated, question_id, questions_table
from almanac.foresight.validate import JudgeConfig
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.tasks import run_task

STAGE = "foresight_select"


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
    ledger = StageLedger(STAGE)
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
