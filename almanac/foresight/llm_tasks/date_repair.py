"""The ``date_repair`` task: item, parser, and the offline repair.

Offline: the earliest calendar date mentioned in an article sentence that names the answer (relative
dates read against the publish date); the publish date when no sentence dates it; ``unknown`` when the
article does not contain the answer at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from almanac.core.nlp import parse, resolve_date
from almanac.core.text import contains_phrase
from almanac.foresight.llm_tasks.questions import GeneratedQuestion, article_variables, iso_day
from almanac.llm.parsing import (
    collapse,
    iso_date_or_unknown,
    one_tag,
    optional_tag,
)
from almanac.llm.registry import Task, TaskItem, register


@dataclass(frozen=True)
class DateRepair:
    earliest_date: str  # YYYY-MM-DD or "unknown"
    evidence: str


def parse_date_repair(text: str, variables: Mapping[str, str]) -> DateRepair:
    del variables
    earliest = iso_date_or_unknown(one_tag(text, "earliest_date"), "<earliest_date>")
    return DateRepair(earliest, collapse(optional_tag(text, "evidence")))


def date_repair_item(
    question_id: str,
    question: GeneratedQuestion,
    text: str,
    publish_date: date | datetime | str,
    max_chars: int = 0,
) -> TaskItem:
    variables = {
        "question_title": question.question_title,
        "background": question.background,
        "answer": question.answer,
        "answer_type": question.answer_type,
        "resolution_date": question.resolution_date,
        "publish_date": iso_day(publish_date),
        "article_text": article_variables(None, text, max_chars)["article_text"],
    }
    return TaskItem(question_id, variables)


_LOOKBACK_DAYS = 366  # a date mentioned in an article further back than this is background, not the event


def date_repair(variables: Mapping[str, str], model: str) -> str:
    published = date.fromisoformat(variables["publish_date"])
    answer = variables["answer"]
    doc = parse(variables["article_text"], model)
    sentences = [sentence for sentence in doc.sents if contains_phrase(sentence.text, answer)]
    if not sentences:
        return "<evidence>No sentence names the answer.</evidence>\n<earliest_date>unknown</earliest_date>"
    earliest, evidence = published, "No sentence naming the answer gives an earlier date than publication."
    for sentence in sentences:
        for ent in sentence.ents:
            if ent.label_ != "DATE":
                continue
            day = resolve_date(ent.text, published)
            if day is not None and published - timedelta(days=_LOOKBACK_DAYS) <= day < earliest:
                earliest = day
                evidence = f'The article dates it "{ent.text}": {" ".join(sentence.text.split())[:300]}'
    return f"<evidence>{evidence}</evidence>\n<earliest_date>{earliest.isoformat()}</earliest_date>"


DATE_REPAIR = register(
    Task("date_repair", item=date_repair_item, parse=parse_date_repair, offline=date_repair)
)
