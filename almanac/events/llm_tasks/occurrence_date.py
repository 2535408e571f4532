"""The ``occurrence_date`` task: item, parser, and the offline dating of Wikipedia articles.

Occurrence date: the latest resolvable DATE mention of the lead (for a span "March to July 2025" its
end), at the precision stated; the whole text when the lead has none; ``unknown`` when nothing resolves.
Mentions after "since" or "before" and mentions inside a modal clause ("would ... before 2028") are
reference points, not the event's date, and are ignored; how mentions resolve is told in ``dates``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from almanac.core.nlp import parse
from almanac.events.llm_tasks.date_mentions import (
    date_key,
    heading_text,
    hypothetical,
    lead_lines,
    read_dates,
    title_year,
)
from almanac.events.llm_tasks.items import clip
from almanac.events.llm_tasks.replies import EventDate, normalise_event_date
from almanac.llm.parsing import ParseError, one_tag
from almanac.llm.registry import Task, TaskItem, register


def parse_occurrence_date(text: str, variables: Mapping[str, str]) -> EventDate:
    del variables
    try:
        return normalise_event_date(one_tag(text, "occurrence_date"))
    except ParseError as error:
        raise ParseError(f"<occurrence_date>: {error}") from None


def occurrence_date_item(item_id: str, title: str, text: str, max_chars: int) -> TaskItem:
    return TaskItem(item_id, {"title": title, "article_text": clip(text, max_chars)})


def occurrence_date(variables: Mapping[str, str], model: str) -> str:
    title, text = variables["title"], variables["article_text"]
    lead = lead_lines(text)
    body = [line for line in text.splitlines() if line.strip() and heading_text(line) is None]
    for lines in (lead, body):
        latest = _latest_date(lines, title_year(title), model)
        if latest is not None:
            return f"<occurrence_date>{latest.date}</occurrence_date>"
    return "<occurrence_date>unknown</occurrence_date>"


def _latest_date(lines: Sequence[str], context_year: int | None, model: str) -> EventDate | None:
    found: list[EventDate] = []
    for line in lines:
        mentions, context_year = read_dates(parse(line, model), None, context_year)
        found.extend(value for ent, dates in mentions if not hypothetical(ent.root) for value in dates)
    keyed = [(key, value) for value in found if (key := date_key(value)) is not None]
    return max(keyed, key=lambda pair: pair[0])[1] if keyed else None


OCCURRENCE_DATE = register(
    Task("occurrence_date", item=occurrence_date_item, parse=parse_occurrence_date, offline=occurrence_date)
)
