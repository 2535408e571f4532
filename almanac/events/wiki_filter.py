"""wiki_filter: Wikipedia articles -> articles about events (OpenForecast appendix A's three filters).

Cheap before dear: first a section-title filter keeps articles with at least one event-evolution
section (Background, Aftermath, Timeline, ...); then the classifier role names each remaining
article's category (only events stay, with a topic); then it dates the events still in, keeping those
that ended in or after ``min_year``. Every article is an item: kept, or a reject with the filter that
dropped it. Kept articles carry the lead and event-evolution sections only, the timeline's input.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.core.schemas import table_from_rows
from almanac.core.step import Drop, Step, apply_step
from almanac.events.documents import sections_text
from almanac.events.llm_tasks.article_category import ARTICLE_CATEGORY, article_category_item
from almanac.events.llm_tasks.occurrence_date import OCCURRENCE_DATE, occurrence_date_item
from almanac.events.llm_tasks.replies import ArticleCategory, EventDate
from almanac.events.schema import WIKI_EVENT_SCHEMA
from almanac.llm.cache import LLMCache
from almanac.llm.config import LLMConfig
from almanac.llm.registry import Task, TaskItem
from almanac.llm.tasks import TaskResult, run_task
from almanac.wiki.sections import (
    EVENT_SECTION_TITLES,
    LEAD_LEVEL,
    Section,
    select_event_sections,
    word_count,
)

STAGE = "wiki_filter"
KEPT_CATEGORY = "event"


@dataclass(frozen=True)
class WikiFilterConfig:
    section_titles: tuple[str, ...] = EVENT_SECTION_TITLES
    min_year: int = 1950  # OpenForecast's complex events start in 1950
    max_article_chars: int = 12000  # article text shown to the classifier
    role: str = "classifier"

    def __post_init__(self) -> None:
        if not self.section_titles:
            raise ValueError("wiki_filter: section_titles must name at least one section title")


def filter_event_articles(
    articles: pa.Table, config: WikiFilterConfig, llm: LLMConfig, cache: LLMCache
) -> tuple[pa.Table, StageLedger]:
    """Rows of WIKI_EVENT_SCHEMA sorted by page id, and the ledger with one reject per dropped article."""
    ledger = StageLedger(STAGE)
    role = llm.role(config.role)

    def run(task: Task[..., Any], items: list[TaskItem]) -> list[TaskResult[Any]]:
        return run_task(role, task, items, cache, ledger, llm.prompts_dir) if items else []

    def by_sections(row: dict[str, Any]) -> Candidate | Drop:
        sections = [Section(s["title"], s["level"], s["text"]) for s in row["sections"]]
        kept = select_event_sections(sections, config.section_titles, include_lead=True)
        if any(section.level != LEAD_LEVEL for section in kept):
            return row, sections, kept
        titles = ", ".join(repr(s.title) for s in sections if s.level != LEAD_LEVEL) or "none"
        return Drop("no_event_section", f"{row['title']}: no event-evolution section among {titles}"[:2000])

    candidates = apply_step(articles.to_pylist(), Step(by_sections, _page_id, _source), ledger)
    ledger.extra["after_section_filter"] = len(candidates)

    items = [
        article_category_item(
            str(row["page_id"]), row["title"], sections_text(sections), config.max_article_chars
        )
        for row, sections, _ in candidates
    ]
    categories = Counter[str]()

    def by_category(pair: tuple[Candidate, TaskResult[Any]]) -> tuple[Candidate, str] | Drop:
        (row, _sections, _kept), result = pair
        if not result.ok:
            return result.failure()
        category = result.value
        assert isinstance(category, ArticleCategory)
        categories[category.category] += 1
        if category.category != KEPT_CATEGORY:
            reason = f"category_{category.category.replace(' ', '_')}"
            return Drop(reason, f"{row['title']}: classified as {category.category}")
        return pair[0], category.topic

    judged = zip(candidates, run(ARTICLE_CATEGORY, items), strict=True)
    category_step = Step(by_category, _of_candidate(_page_id), _of_candidate(_source))
    events = apply_step(judged, category_step, ledger, chained=True)
    ledger.extra["after_category_filter"] = len(events)

    items = [
        occurrence_date_item(
            str(row["page_id"]), row["title"], sections_text(sections), config.max_article_chars
        )
        for (row, sections, _), _topic in events
    ]
    precisions = Counter[str]()

    def by_date(pair: tuple[tuple[Candidate, str], TaskResult[Any]]) -> dict[str, Any] | Drop:
        ((row, _sections, kept), topic), result = pair
        if not result.ok:
            return result.failure()
        date = result.value
        assert isinstance(date, EventDate)
        precisions[date.precision] += 1
        reason = _date_reject(date, config.min_year)
        if reason:
            return Drop(reason, f"{row['title']}: occurrence date {date.date}")
        return _event_row(row, kept, topic, date)

    dated = zip(events, run(OCCURRENCE_DATE, items), strict=True)
    date_step = Step(by_date, _of_event(_page_id), _of_event(_source))
    out_rows = apply_step(dated, date_step, ledger, chained=True)

    out_rows.sort(key=lambda out: int(out["page_id"]))
    ledger.extra["article_categories"] = dict(sorted(categories.items()))
    ledger.extra["date_precisions"] = dict(sorted(precisions.items()))
    ledger.extra["event_topics"] = dict(sorted(Counter(out["topic"] for out in out_rows).items()))
    return table_from_rows(out_rows, WIKI_EVENT_SCHEMA), ledger


Candidate = tuple[dict[str, Any], list[Section], list[Section]]  # article row, all sections, kept ones


def _page_id(row: dict[str, Any]) -> str:
    return str(row["page_id"])


def _source(row: dict[str, Any]) -> str:
    return str(row["source"])


def _of_candidate(getter: Callable[[dict[str, Any]], str]) -> Callable[[tuple[Candidate, Any]], str]:
    return lambda pair: getter(pair[0][0])


def _of_event(getter: Callable[[dict[str, Any]], str]) -> Callable[[tuple[tuple[Candidate, str], Any]], str]:
    return lambda pair: getter(pair[0][0][0])


def _date_reject(date: EventDate, min_year: int) -> str:
    if date.precision == "unknown":
        return "no_occurrence_date"
    if int(date.date[:4]) < min_year:
        return "before_min_year"
    return ""


def _event_row(row: dict[str, Any], kept: list[Section], topic: str, date: EventDate) -> dict[str, Any]:
    return {
        "page_id": row["page_id"],
        "title": row["title"],
        "revision_timestamp": row["revision_timestamp"],
        "topic": topic,
        "occurrence_date": date.date,
        "date_precision": date.precision,
        "sections": [{"title": s.title, "level": s.level, "text": s.text} for s in kept],
        "word_count": word_count(kept),
        "source": row["source"],
    }
