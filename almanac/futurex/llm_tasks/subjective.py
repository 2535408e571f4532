"""The ``futurex_subjective`` task: does an event hinge on opinion or on the asker's own doings?
FutureX drops such events ("Will we win 100k tomorrow at the mara hackathon?", "I finish Park's ...").

The offline baseline's rules: the question speaks in the first person (I, we, my, our), asks for a taste
or judgement (best, favourite, overrated, deserve, should, better than), or has no checkable outcome
("feel", "think", "opinion").
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from almanac.futurex.llm_tasks.verdicts import event_item, verdict_parser, verdict_reply, verdict_schema
from almanac.llm.registry import Task, register

FLAG, KEEP = "subjective", "objective"

RULES: Final = (
    # "I" by case ("Phase I" aside), the rest in any case; never "us" ("the US").
    (re.compile(r"\bI\b|\b(?i:we|my|our|me)\b"), "speaks in the first person"),
    (
        re.compile(
            r"\b(best|worst|favou?rite|overrated|underrated|deserves?|should|better than|most beautiful)\b",
            re.I,
        ),
        "asks for a judgement of taste or merit",
    ),
    (re.compile(r"\b(feel|think|opinion|believe)\b", re.I), "asks for an opinion, not an outcome"),
)


def subjective_reason(question: str) -> str | None:
    for pattern, why in RULES:
        match = pattern.search(question)
        if match:
            return f"{why}: {match.group(0).strip()!r}"
    return None


def offline_subjective(variables: Mapping[str, str], model: str) -> str:
    del model
    # The title alone: a background quotes people ("we will ...") without the question being about them.
    return verdict_reply(FLAG, KEEP, subjective_reason(variables["question"]))


SUBJECTIVE = register(
    Task(
        "futurex_subjective",
        item=event_item,
        parse=verdict_parser(FLAG, KEEP),
        offline=offline_subjective,
        schema=verdict_schema(FLAG, KEEP),
    )
)
