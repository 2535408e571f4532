"""The ``futuresim_answer_match`` task: does a role's answer match the gold answer?

Offline: the two answers are equal once folded (case, diacritics, punctuation) and stripped of a
leading article ("The Hague" matches "the hague", "Hague" does not). Stricter than a model, which may
also accept a surname or an abbreviation; a stricter judge moves fewer dates and calls more questions
label noise, never the other way round.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from almanac.core.text import fold
from almanac.llm.parsing import choice, one_tag
from almanac.llm.registry import Task, TaskItem, register

VERDICTS = ("correct", "incorrect")
_ARTICLES = ("the ", "a ", "an ")


@dataclass(frozen=True)
class Match:
    correct: bool


def normalised(answer: str) -> str:
    folded = fold(answer)
    for article in _ARTICLES:
        if folded.startswith(article):
            return folded[len(article) :]
    return folded


def answer_match_item(item_id: str, question_title: str, predicted: str, gold: str) -> TaskItem:
    return TaskItem(item_id, {"question_title": question_title, "predicted": predicted, "gold": gold})


def parse_answer_match(text: str, variables: Mapping[str, str]) -> Match:
    del variables
    return Match(choice(one_tag(text, "verdict"), VERDICTS, "<verdict>") == "correct")


def answer_match(variables: Mapping[str, str], model: str) -> str:
    del model
    same = bool(normalised(variables["gold"])) and normalised(variables["predicted"]) == normalised(
        variables["gold"]
    )
    return f"<verdict>{'correct' if same else 'incorrect'}</verdict>"


ANSWER_MATCH = register(
    Task("futuresim_answer_match", item=answer_match_item, parse=parse_answer_match, offline=answer_match)
)
