"""complex_events: Wikipedia event articles and WCEP stories -> complex events with dated documents.

A Wikipedia event article is one complex event with one document (its kept sections). WCEP events
that share a story heading form one complex event. The paper aggregates "events sharing the same
subheaders"; on the portal an event sits under its story's heading, which is nested under broader
headings (a storm under its season, an election under a country's politics) that the portal does not
nest the same way every day. So by default (``wcep_group: event``) the story is the innermost
heading, whatever it is nested under; ``path`` groups by the whole heading path, ``top`` by the
outermost heading only. Each WCEP event is a document holding its summary and the text of the source articles
wcep_news resolved, so the timeline stage can read a story in date order. Items are the wiki articles
and the WCEP events: each lands in a complex event or is a reject (an event with no story heading
belongs to no story).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from almanac.core.ids import canonical_url, content_id
from almanac.core.rejects import StageLedger
from almanac.core.schemas import table_from_rows
from almanac.core.step import Drop, Step, apply_filter, apply_group_step, apply_step, first_survives
from almanac.events.documents import ELLIPSIS, sections_text, truncate_words
from almanac.events.schema import COMPLEX_EVENT_SCHEMA
from almanac.wiki.sections import Section

STAGE = "complex_events"
WCEP_GROUPS = ("event", "path", "top")
PATH_SEPARATOR = " > "


@dataclass(frozen=True)
class ComplexEventsConfig:
    wcep_group: str = "event"  # event: innermost story heading; path: the whole path; top: outermost
    max_document_chars: int = 12000  # per WCEP event document; <= 0 keeps whole texts

    def __post_init__(self) -> None:
        if self.wcep_group not in WCEP_GROUPS:
            raise ValueError(
                f"complex_events: wcep_group must be one of {WCEP_GROUPS}, got {self.wcep_group!r}"
            )


def wikipedia_ce_id(page_id: int) -> str:
    return content_id("wikipedia", str(page_id))


def wcep_ce_id(path: Sequence[str]) -> str:
    return content_id("wcep", PATH_SEPARATOR.join(path))


def build_complex_events(
    wiki_events: pa.Table, wcep_events: pa.Table, wcep_news: pa.Table, config: ComplexEventsConfig
) -> tuple[pa.Table, StageLedger]:
    ledger = StageLedger(STAGE)
    wiki_step = Step(_wikipedia_row, lambda article: str(article["page_id"]), _source)
    rows = apply_step(wiki_events.to_pylist(), wiki_step, ledger)
    rows.extend(_wcep_rows(wcep_events, wcep_news, config, ledger))
    rows.sort(key=lambda row: str(row["ce_id"]))
    for row in rows:
        ledger.count("complex_events_by_origin", row["origin"])
        ledger.count("documents_per_complex_event", str(len(row["documents"])))
    per_ce = ledger.extra.get("documents_per_complex_event", {})
    ledger.extra["documents_per_complex_event"] = dict(sorted(per_ce.items(), key=lambda kv: int(kv[0])))
    ledger.extra["complex_events"] = len(rows)
    return table_from_rows(rows, COMPLEX_EVENT_SCHEMA), ledger


def _wikipedia_row(article: dict[str, Any]) -> dict[str, Any]:
    ce_id = wikipedia_ce_id(article["page_id"])
    sections = [Section(s["title"], s["level"], s["text"]) for s in article["sections"]]
    document = {
        "doc_id": content_id("wikipedia_article", str(article["page_id"])),
        "kind": "wikipedia_article",
        "date": None,
        "title": article["title"],
        "text": sections_text(sections),
        "urls": [],
    }
    return {
        "ce_id": ce_id,
        "origin": "wikipedia",
        "title": article["title"],
        "story_path": [],
        "topic": article["topic"],
        "first_date": None,
        "last_date": None,
        "documents": [document],
        "source": article["source"],
    }


def _wcep_rows(
    events: pa.Table, news: pa.Table, config: ComplexEventsConfig, ledger: StageLedger
) -> list[dict[str, Any]]:
    articles = _articles_by_event(news)
    groups: dict[tuple[str, ...], list[dict[str, Any]]] = defaultdict(list)
    categories: dict[tuple[str, ...], list[str]] = defaultdict(list)
    paths: dict[tuple[str, ...], list[tuple[str, ...]]] = defaultdict(list)
    without_articles = truncated = 0
    with_story = apply_filter(events.to_pylist(), _story_or_drop, ledger, _event_id, _source)
    # The same day and summary twice (e.g. a portal page and WCEP-MDS): the first one stays.
    same_event = first_survives(_event_id, _repeated_event, _event_id, _source, names_survivor=False)
    for event in apply_group_step(with_story, same_event, ledger, chained=True):
        path = _story_path(event)
        key = group_key(path, config.wcep_group)
        document, was_truncated = _wcep_document(event, path, articles.get(event["id"], []), config)
        without_articles += not articles.get(event["id"])
        truncated += was_truncated
        groups[key].append(document)
        categories[key].append(event["category"])
        # Under an innermost heading the full paths may differ; keep them to show the usual one.
        paths[key].append(tuple(path) if config.wcep_group == "event" else key)
    ledger.extra["wcep_events_without_articles"] = without_articles
    ledger.extra["wcep_documents_truncated"] = truncated
    return [_wcep_row(key, documents, categories[key], paths[key]) for key, documents in groups.items()]


def _story_path(event: dict[str, Any]) -> list[str]:
    return [part for part in (p.strip() for p in event["story_path"]) if part]


def _story_or_drop(event: dict[str, Any]) -> Drop | None:
    if _story_path(event):
        return None
    return Drop("no_story", f"{event['date']}: {event['summary'][:300]}")


def _repeated_event(event: dict[str, Any], _first: dict[str, Any]) -> Drop:
    return Drop("duplicate_event", event["summary"][:300])


def _event_id(event: dict[str, Any]) -> str:
    return str(event["id"])


def _source(record: dict[str, Any]) -> str:
    return str(record["source"])


def group_key(path: Sequence[str], wcep_group: str) -> tuple[str, ...]:
    """The headings that name a WCEP event's complex event under ``wcep_group``."""
    if wcep_group == "event":
        return (path[-1],)
    return tuple(path) if wcep_group == "path" else (path[0],)


def _articles_by_event(news: pa.Table) -> dict[str, list[dict[str, Any]]]:
    by_event: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for article in news.select(["event_id", "url", "title", "text"]).to_pylist():
        by_event[article["event_id"]].append(article)
    return by_event


def _wcep_document(
    event: dict[str, Any], path: list[str], articles: list[dict[str, Any]], config: ComplexEventsConfig
) -> tuple[dict[str, Any], bool]:
    """Summary first, then each resolved article in the order the event links them; cut to size."""
    link_order = {canonical_url(url): index for index, url in enumerate(event["source_urls"])}
    ordered = sorted(
        articles, key=lambda a: (link_order.get(canonical_url(a["url"]), len(link_order)), a["url"])
    )
    parts, starts, offset = [event["summary"].strip()], [], len(event["summary"].strip())
    for article in ordered:
        block = "\n\n".join(
            part for part in ((article["title"] or "").strip(), article["text"].strip()) if part
        )
        offset += 2  # the blank line before the block
        starts.append((offset, article["url"]))
        parts.append(block)
        offset += len(block)
    full = "\n\n".join(parts)
    text = truncate_words(full, config.max_document_chars)
    kept_chars = len(text) - len(ELLIPSIS) if text != full else len(text)
    urls = list(dict.fromkeys(url for start, url in starts if start < kept_chars))
    document = {
        "doc_id": event["id"],
        "kind": "wcep_event",
        "date": event["date"],
        "title": path[-1],
        "text": text,
        "urls": urls,
    }
    return document, text != full


def _wcep_row(
    key: tuple[str, ...],
    documents: list[dict[str, Any]],
    categories: list[str],
    paths: list[tuple[str, ...]],
) -> dict[str, Any]:
    documents.sort(key=lambda doc: (doc["date"], doc["doc_id"]))
    # The story path shown: the one its events sit under most often (ties: the first in sorted order).
    counts = Counter(paths)
    path = min(counts, key=lambda candidate: (-counts[candidate], candidate))
    return {
        "ce_id": wcep_ce_id(key),
        "origin": "wcep",
        "title": key[-1],
        "story_path": list(path),
        "topic": majority_topic(categories),
        "first_date": documents[0]["date"],
        "last_date": documents[-1]["date"],
        "documents": documents,
        "source": f"wcep_story:{PATH_SEPARATOR.join(key)}",
    }


def majority_topic(categories: Iterable[str]) -> str:
    """The most frequent category; a tie goes to the alphabetically first."""
    counts = Counter(categories)
    return min(counts, key=lambda category: (-counts[category], category)) if counts else ""
