"""OpenForesight's released record shape, outbound: what ``almanac publish openforesight`` writes.

Tools built for the OpenForesight release read its question records with dates as ``YYYY-MM-DD``
strings and ready forecaster prompts, and its articles in news-please field names. The project's split
files keep typed dates (the checker and the reports read those); only the published copy is converted
here. The inbound direction (``almanac import openforesight``) is in ``release_import``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import pyarrow as pa

from almanac.core.field_roles import Role, prompt_fields, with_roles
from almanac.foresight.schema import FIELD_ROLES, RELEASED_COLUMNS

DATE_COLUMNS = ("question_start_date", "resolution_date", "article_publish_date")
PROMPT_COLUMNS: dict[str, Role] = {"prompt": "prompt", "prompt_without_retrieval": "prompt"}
NEWSPLEASE_DATE_FORMAT = "%Y-%m-%d %H:%M:%S"  # news-please writes date_publish / date_download so

# Project article column -> news-please field name; columns not listed are left out of the release.
NEWSPLEASE_NAMES = {
    "id": "article_id",  # the questions' article_id points here
    "url": "url",
    "source_domain": "source_domain",
    "title": "title",
    "publish_date": "date_publish",
    "crawl_date": "date_download",
    "language": "language",
    "text": "maintext",
    # Not news-please fields, but they say how far date_publish can be trusted (kept when present).
    "date_source": "date_source",
    "date_precision": "date_precision",
}


@dataclass(frozen=True)
class RetrievedArticle:
    """One news item placed in a forecaster prompt; it must predate the question's retrieval cut-off."""

    title: str
    publish_date: str  # YYYY-MM-DD
    source: str
    text: str


def day_string(value: Any) -> str | None:
    """``YYYY-MM-DD`` of a date or timestamp (timestamps are UTC in this project); None stays None."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, date):
        return value.isoformat()
    raise TypeError(f"not a date: {value!r}")


def forecaster_prompt(
    question_title: str,
    background: str,
    resolution_criteria: str,
    question_start_date: str | None,
    retrieved: Sequence[RetrievedArticle] = (),
) -> str:
    """The text shown to a forecaster, built from the prompt fields only (and retrieved news, if any).

    Nothing else of the record goes in: not the answer, its type, the resolution date or the source
    article, which may state the outcome. The reply format matches what OpenForesight grades (a short
    answer and a probability).
    """
    today = (
        f" Today is {question_start_date}; treat anything reported after today as unknown."
        if question_start_date
        else ""
    )
    parts = [
        f"You are forecasting the outcome of a question about events after today.{today}",
        f"Question: {question_title.strip()}",
        f"Background:\n{background.strip()}",
        f"How the question resolves:\n{resolution_criteria.strip()}",
    ]
    if retrieved:
        items = [
            f"[{number}] {item.title.strip()} ({item.publish_date}, {item.source})\n{item.text.strip()}"
            for number, item in enumerate(retrieved, start=1)
        ]
        parts.append("News articles that may help, all published before today:\n\n" + "\n\n".join(items))
    parts.append(
        "Give your single best guess as a short phrase inside <answer></answer>, then the probability "
        "(from 0 to 1) that your guess is correct inside <probability></probability>."
    )
    return "\n\n".join(parts)


def released_questions(
    table: pa.Table, retrieval: Mapping[str, Sequence[RetrievedArticle]] | None = None
) -> pa.Table:
    """Split rows -> published records: released columns, string dates, prompts, role metadata.

    ``prompt`` holds the prompt with the retrieved articles of the question (``retrieval`` by
    question_id) when there are any, else the same text as ``prompt_without_retrieval``.
    """
    required = ("question_id", *prompt_fields(FIELD_ROLES))
    missing = [name for name in required if name not in table.column_names]
    if missing:
        raise ValueError(f"openforesight split rows lack the prompt columns {missing}")
    names = [name for name in RELEASED_COLUMNS if name in table.column_names]
    rows = table.select(names).to_pylist()
    for row in rows:
        for name in DATE_COLUMNS:
            if name in row:
                row[name] = day_string(row[name])
        fields = (
            row["question_title"],
            row["background"],
            row["resolution_criteria"],
            row["question_start_date"],
        )
        bare = forecaster_prompt(*fields)
        retrieved = (retrieval or {}).get(row["question_id"], ())
        row["prompt"] = forecaster_prompt(*fields, retrieved=retrieved) if retrieved else bare
        row["prompt_without_retrieval"] = bare
    schema = pa.schema(
        [
            pa.field(item.name, pa.string()) if item.name in DATE_COLUMNS else item
            for item in table.select(names).schema
        ]
        + [pa.field(name, pa.string(), nullable=False) for name in PROMPT_COLUMNS]
    )
    return with_roles(pa.Table.from_pylist(rows, schema=schema), {**FIELD_ROLES, **PROMPT_COLUMNS})


def newsplease_articles(table: pa.Table) -> pa.Table:
    """Cited articles in news-please field names, dates as ``YYYY-MM-DD HH:MM:SS`` strings."""
    kept = [name for name in NEWSPLEASE_NAMES if name in table.column_names]
    columns = []
    for name in kept:
        column = table.column(name)
        if name in ("publish_date", "crawl_date"):
            values = [None if v is None else v.strftime(NEWSPLEASE_DATE_FORMAT) for v in column.to_pylist()]
            column = pa.chunked_array([pa.array(values, type=pa.string())])
        columns.append(column)
    return pa.table(columns, names=[NEWSPLEASE_NAMES[name] for name in kept])
