"""The ``futurex_harmful`` task: is an event harmful (discrimination, hate, wagering on a person's death
or harm)? FutureX drops such events with a vote of several judge models (its appendix C).

The offline baseline is a rule list, each rule a pattern with the reason it names: hateful or
dehumanising wording, and questions that bet on a named person dying, being killed or attacked.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from almanac.futurex.llm_tasks.verdicts import event_item, verdict_parser, verdict_reply, verdict_schema
from almanac.llm.registry import Task, register

FLAG, KEEP = "harmful", "acceptable"

RULES: Final = (
    (
        re.compile(
            r"\b(subhuman|vermin|inferior (race|people)|ethnic cleansing|racial purity|go back to)\b", re.I
        ),
        "hateful or dehumanising wording",
    ),
    (
        re.compile(
            r"\b(hate (group|speech) (win|succeed)|deport all|"
            r"ban all (muslims|jews|christians|immigrants))\b",
            re.I,
        ),
        "asks about discrimination against a group as an outcome",
    ),
    (
        re.compile(
            r"\bwill\b[^?]*\b(die|be killed|be assassinated|be murdered|be shot|commit suicide)\b", re.I
        ),
        "wagers on a person's death or harm",
    ),
)


def harmful_reason(text: str) -> str | None:
    for pattern, why in RULES:
        match = pattern.search(text)
        if match:
            return f"{why}: {match.group(0)!r}"
    return None


def offline_harmful(variables: Mapping[str, str], model: str) -> str:
    del model
    return verdict_reply(FLAG, KEEP, harmful_reason(f"{variables['question']}\n{variables['background']}"))


HARMFUL = register(
    Task(
        "futurex_harmful",
        item=event_item,
        parse=verdict_parser(FLAG, KEEP),
        offline=offline_harmful,
        schema=verdict_schema(FLAG, KEEP),
    )
)
