"""Parquet schemas of the complex-event branch: Wikipedia event articles, complex events, timelines."""

from __future__ import annotations

import pyarrow as pa

from almanac.core.field_roles import Role
from almanac.core.schemas import TIMESTAMP
from almanac.wiki.schema import SECTION_TYPE

# wiki_filter output: Wikipedia articles about events, reduced to their event-evolution sections.
WIKI_EVENT_SCHEMA = pa.schema(
    [
        pa.field("page_id", pa.int64(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("revision_timestamp", TIMESTAMP, nullable=False),
        pa.field("topic", pa.string(), nullable=False),  # one of EVENT_TOPICS
        pa.field(
            "occurrence_date", pa.string(), nullable=False
        ),  # yyyy | yyyy-MM | yyyy-MM-dd (end of a span)
        pa.field("date_precision", pa.string(), nullable=False),  # year | month | day
        pa.field("sections", pa.list_(SECTION_TYPE), nullable=False),  # lead + event-evolution sections only
        pa.field("word_count", pa.int32(), nullable=False),  # of the kept sections
        pa.field("source", pa.string(), nullable=False),
    ]
)

# One input document of a complex event: the Wikipedia article's kept sections, or one WCEP event
# (its summary followed by the text of its resolved source articles).
DOCUMENT_TYPE = pa.struct(
    [
        ("doc_id", pa.string()),
        ("kind", pa.string()),  # "wikipedia_article" | "wcep_event"
        ("date", pa.date32()),  # WCEP: the event's day; Wikipedia: null (one document, nothing to sort)
        ("title", pa.string()),
        ("text", pa.string()),
        ("urls", pa.list_(pa.string())),  # source articles whose text is included
    ]
)

COMPLEX_EVENT_SCHEMA = pa.schema(
    [
        pa.field("ce_id", pa.string(), nullable=False),
        pa.field("origin", pa.string(), nullable=False),  # "wikipedia" | "wcep"
        pa.field("title", pa.string(), nullable=False),  # article title, or the story path's last element
        pa.field("story_path", pa.list_(pa.string()), nullable=False),  # WCEP only
        pa.field("topic", pa.string(), nullable=False),
        pa.field("first_date", pa.date32()),  # earliest dated document (WCEP), null for Wikipedia
        pa.field("last_date", pa.date32()),
        pa.field("documents", pa.list_(DOCUMENT_TYPE), nullable=False),  # sorted by (date, doc_id)
        pa.field("source", pa.string(), nullable=False),
    ]
)

ATOMIC_EVENT_TYPE = pa.struct(
    [
        ("event_id", pa.string()),  # content_id(ce_id, text)
        ("position", pa.int32()),  # 0-based place in the final timeline
        ("text", pa.string()),
        ("date", pa.string()),  # yyyy-MM-dd | yyyy-MM | yyyy | unknown
        ("date_precision", pa.string()),  # day | month | year | unknown
        ("day", pa.date32()),  # the calendar day when date_precision == "day", else null
        ("event_type", pa.string()),  # open event extraction; "" = not stated
        ("subject", pa.string()),
        ("object", pa.string()),
        ("location", pa.string()),
        ("time", pa.string()),
        ("doc_id", pa.string()),  # the document the event was first extracted from
    ]
)

TIMELINE_SCHEMA = pa.schema(
    [
        pa.field("ce_id", pa.string(), nullable=False),
        pa.field("origin", pa.string(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("topic", pa.string(), nullable=False),
        pa.field("events", pa.list_(ATOMIC_EVENT_TYPE), nullable=False),
        pa.field("n_documents", pa.int32(), nullable=False),
        pa.field("models", pa.list_(pa.string()), nullable=False),  # models that wrote the timeline
    ]
)

# What a forecaster sees of a released OpenForecast sample (every task): the role of each column.
# Undeclared columns are provenance (almanac/core/field_roles.py).
FIELD_ROLES: dict[str, Role] = {
    # The timeline up to the cut, the cut day and the task's question with its options.
    "cut_date": "prompt",
    "background": "prompt",
    "question": "prompt",
    "argument": "prompt",
    "options": "prompt",
    "candidate": "prompt",
    "target": "answer",
    "targets": "answer",
    "answer": "answer",
    "answer_index": "answer",
    "answer_label": "answer",
    "label": "answer",
    # Wikipedia titles are written after the fact ("Assassination of ..."), so not shown.
    "ce_title": "provenance",
    "sample_id": "provenance",
    "task": "provenance",
    "split": "provenance",
    "ce_id": "provenance",
    "origin": "provenance",
    "topic": "provenance",
    "targets_trimmed": "provenance",
    "negatives_discarded": "provenance",
    "mcnc_sample_id": "provenance",
    "model": "provenance",
    "prompt_version": "provenance",
}
