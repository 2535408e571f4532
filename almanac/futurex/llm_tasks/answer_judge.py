"""The ``futurex_answer_judge`` task: FutureX's LLM-as-judge of an open answer (Level 3, its equation 1).

One item is one (gold item, predicted item) pair of a question; the judge says whether they name the same
thing. The offline baseline is a normalised match: equal after folding case, diacritics, punctuation and a
leading "the", or equal to one of the question's aliases (a person's surname, the name without "The").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from almanac.futurex.text import normalise
from almanac.llm.parsing import choice, one_tag
from almanac.llm.registry import Task, TaskItem, register

ALIAS_SEPARATOR = " | "


def same_answer(gold: str, aliases: Sequence[str], predicted: str) -> bool:
    wanted = {normalise(gold), *(normalise(alias) for alias in aliases)} - {""}
    return normalise(predicted) in wanted


def judge_item(item_id: str, question: str, gold: str, aliases: Sequence[str], predicted: str) -> TaskItem:
    variables = {
        "question": question,
        "gold": gold,
        "aliases": ALIAS_SEPARATOR.join(aliases),
        "predicted": predicted,
    }
    return TaskItem(item_id, variables)


def parse_judgement(text: str, variables: Mapping[str, str]) -> bool:
    del variables
    return choice(one_tag(text, "verdict"), ("correct", "incorrect"), "<verdict>") == "correct"


def offline_judge(variables: Mapping[str, str], model: str) -> str:
    del model
    aliases = [alias for alias in variables["aliases"].split(ALIAS_SEPARATOR) if alias]
    verdict = "correct" if same_answer(variables["gold"], aliases, variables["predicted"]) else "incorrect"
    return f"<verdict>{verdict}</verdict>"


ANSWER_JUDGE = register(
    Task("futurex_answer_judge", item=judge_item, parse=parse_judgement, offline=offline_judge)
)
