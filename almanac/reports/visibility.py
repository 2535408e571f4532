"""What a forecaster sees: the role of every released field, per dataset style, declared once.

A released record mixes three kinds of fields. ``prompt`` fields are what a forecaster (a person or a
model) is shown; they must not reveal the outcome, so the invariant checker scans them for the answer.
``answer`` fields are the outcome and everything that points at it. ``provenance`` fields say where a
record came from (ids, source article, split, models); they are not shown either, because a source
article's title or URL often states the outcome outright.

The table below is the single source: the published Parquet files carry each column's role as field
metadata (``role``), the dataset card renders it, and ``almanac check`` imports ``prompt_fields``.
A column not listed is provenance: unknown fields are kept out of a prompt, never put in.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

import pyarrow as pa

from almanac.reports.styles import get_style

Role = Literal["prompt", "answer", "provenance"]
ROLES: tuple[Role, ...] = ("prompt", "answer", "provenance")
ROLE_KEY = b"role"

FIELD_ROLES: dict[str, dict[str, Role]] = {
    "openforesight": {
        # OpenForesight's forecaster prompt: the question, its background, how it resolves, and "today".
        "question_title": "prompt",
        "background": "prompt",
        "resolution_criteria": "prompt",
        "question_start_date": "prompt",
        "answer": "answer",
        "answer_type": "answer",
        "answer_class": "answer",
        # The day the outcome became known (clamped to the article date): it tells when the event
        # happened, so it is not shown; the deadline a forecaster needs is written in the title.
        "resolution_date": "answer",
        "question_id": "provenance",
        "url": "provenance",
        "article_title": "provenance",
        "article_publish_date": "provenance",
        "news_source": "provenance",
        "article_id": "provenance",
        "split": "provenance",
        "cross_question_leak": "provenance",
        "generator_model": "provenance",
        "validator_model": "provenance",
    },
    "openforecast": {
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
    },
    "mirai": {
        "date": "prompt",
        "date_text": "prompt",
        "subject": "prompt",
        "object": "prompt",
        "query": "prompt",
        "horizons": "prompt",
        "answers": "answer",
        "answers_by_root": "answer",
        "answer_roots": "answer",
        "query_id": "provenance",
        "month": "provenance",
        "subject_region": "provenance",
        "object_region": "provenance",
        # Counted over the answer day's events, so they describe the outcome: not shown.
        "num_daily_mentions": "provenance",
        "n_articles": "provenance",
        "urls": "provenance",
    },
}


def _roles(style: str) -> dict[str, Role]:
    return FIELD_ROLES[get_style(style).name]


def prompt_fields(style: str) -> tuple[str, ...]:
    """The released split columns a forecaster is shown, in declaration order (aliases accepted)."""
    return tuple(name for name, role in _roles(style).items() if role == "prompt")


def fields_with_role(style: str, role: Role) -> tuple[str, ...]:
    return tuple(name for name, declared in _roles(style).items() if declared == role)


def field_role(style: str, column: str) -> Role:
    """The declared role of ``column``; undeclared columns are provenance (never shown)."""
    return _roles(style).get(column, "provenance")


def with_roles(table: pa.Table, style: str, extra: Mapping[str, Role] | None = None) -> pa.Table:
    """``table`` with a ``role`` entry in every field's metadata (``extra`` for derived columns)."""
    declared = {**_roles(style), **(extra or {})}
    fields = []
    for item in table.schema:
        metadata = dict(item.metadata or {})
        metadata[ROLE_KEY] = declared.get(item.name, "provenance").encode()
        fields.append(item.with_metadata(metadata))
    return table.cast(pa.schema(fields, metadata=table.schema.metadata))


def roles_of(schema: pa.Schema) -> dict[str, str]:
    """Column -> role as written in a published file's field metadata ("" when a field has none)."""
    return {item.name: (item.metadata or {}).get(ROLE_KEY, b"").decode() for item in schema}
