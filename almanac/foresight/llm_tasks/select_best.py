"""The ``select_best`` task: candidates in a tagged list, the pick parser, and the offline pick.

Offline selection keeps the candidates that pass the validator's rules (``validate``) and prefers the
answer the article mentions most, then the one it mentions first (the lede is what the story is about).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime

from almanac.core.nlp import fold
from almanac.foresight.llm_tasks.questions import (
    QUESTION_FIELDS,
    GeneratedQuestion,
    article_variables,
    iso_day,
    parse_candidates,
)
from almanac.foresight.llm_tasks.validate import failed_criteria
from almanac.llm.parsing import (
    ParseError,
    collapse,
    one_tag,
    optional_tag,
)
from almanac.llm.registry import Task, TaskItem, register


@dataclass(frozen=True)
class BestChoice:
    index: int | None  # position in the candidate list, None = no candidate is good enough
    reasons: str


def parse_best(text: str, variables: Mapping[str, str]) -> BestChoice:
    count = int(variables["n_candidates"])
    raw = one_tag(text, "best").strip().strip(".").lower()
    reasons = collapse(optional_tag(text, "reasons"))
    if raw == "none":
        return BestChoice(None, reasons)
    if not raw.isdigit() or int(raw) >= count:
        raise ParseError(
            f"<best> must be a candidate number from 0 to {count - 1} or 'none', got {raw[:20]!r}"
        )
    return BestChoice(int(raw), reasons)


def format_candidates(candidates: Sequence[GeneratedQuestion]) -> str:
    blocks = []
    for index, question in enumerate(candidates):
        fields = "\n".join(f"<{name}>{getattr(question, name)}</{name}>" for name in QUESTION_FIELDS)
        blocks.append(f"<candidate>\n<number>{index}</number>\n{fields}\n</candidate>")
    return "\n".join(blocks)


def select_best_item(
    article_id: str,
    candidates: Sequence[GeneratedQuestion],
    title: str | None,
    text: str,
    publish_date: date | datetime | str,
    max_chars: int = 0,
) -> TaskItem:
    variables = {
        **article_variables(title, text, max_chars),
        "publish_date": iso_day(publish_date),
        "candidates": format_candidates(candidates),
        "n_candidates": str(len(candidates)),
    }
    return TaskItem(article_id, variables)


def select_best(variables: Mapping[str, str], model: str) -> str:
    article = variables["article_text"]
    folded = fold(article)
    ranked = []
    for index, question in enumerate(parse_candidates(variables["candidates"])):
        if failed_criteria(question, article, model):
            continue
        answer = re.escape(fold(question.answer))
        mentions = len(re.findall(rf"(?<!\w){answer}(?!\w)", folded))
        first = folded.find(fold(question.answer))
        ranked.append((-mentions, first, index))
    if not ranked:
        return "<reasons>No candidate passes the rule checks.</reasons>\n<best>none</best>"
    mentions, first, index = min(ranked)
    return (
        f"<reasons>Candidate {index} passes every check and its answer is the most prominent in the article "
        f"({-mentions} mentions, first at character {first}).</reasons>\n<best>{index}</best>"
    )


SELECT_BEST = register(Task("select_best", item=select_best_item, parse=parse_best, offline=select_best))
