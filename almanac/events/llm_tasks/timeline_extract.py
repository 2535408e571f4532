"""The ``timeline_extract`` task: item, parser, and the offline extraction (rules in ``timeline_rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from almanac.events.llm_tasks.items import clip, day_or_unknown
from almanac.events.llm_tasks.replies import Timeline
from almanac.events.llm_tasks.timeline_rules import document_day, extract_events, render_timeline
from almanac.events.llm_tasks.timelines import answer_events
from almanac.llm.registry import Task, TaskItem, register


def parse_timeline_extract(text: str, variables: Mapping[str, str]) -> Timeline:
    del variables
    return Timeline(tuple(answer_events(text)))


def timeline_extract_item(
    item_id: str, title: str, document_date: date | None, text: str, max_chars: int
) -> TaskItem:
    variables = {
        "title": title,
        "document_date": day_or_unknown(document_date),
        "article_text": clip(text, max_chars),
    }
    return TaskItem(item_id, variables)


def timeline_extract(variables: Mapping[str, str], model: str) -> str:
    document_date = document_day(variables["document_date"])
    return render_timeline(
        extract_events(variables["article_text"], variables["title"], document_date, model)
    )


TIMELINE_EXTRACT = register(
    Task(
        "timeline_extract", item=timeline_extract_item, parse=parse_timeline_extract, offline=timeline_extract
    )
)
