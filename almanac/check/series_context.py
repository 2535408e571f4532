"""Invariants of a series question's news context (docs/series.md "News context"): the checker's own
reading, not the builder's code.

A chunk may be shown with a question only when its article's whole publication interval ends on or before
the question's forecast date: a ``day`` (or ``upper_bound``: the crawl date, no later) is that day, a
``month`` its last day, a ``year`` December 31; any other precision has no end and is reported. Where the
corpus is at hand the article's date is read from the corpus files (through the chunk export), never from
the row's own ``available_date``, which could be back-dated. The cap is FutureSim's retrieval cap: at most
``futuresim.retrieval.k`` chunks, ranked 1..n, each of at most ``futuresim.corpus.chunk_tokens`` words.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from almanac.check.common import Checked
from almanac.check.dates import ARTICLE_PRECISIONS, article_last_day, as_day, interval
from almanac.core.text import word_count

Row = Mapping[str, Any]


@dataclass(frozen=True)
class NewsContextRules:
    k: int  # params futuresim.retrieval.k
    chunk_tokens: int  # params futuresim.corpus.chunk_tokens
    # chunk id -> the last day its article may have been published on, from the corpus (None: not traced)
    corpus_days: Mapping[str, date] | None = None
    corpus_problems: Mapping[str, str] = field(default_factory=dict)  # chunk id -> why it has no day


def interval_end(day: object, precision: object) -> date | None:
    """The last day a chunk's article may have been published on; None for an unknown precision."""
    if precision in ARTICLE_PRECISIONS:
        return article_last_day(day, precision)
    start = as_day(day)
    if start is None or precision not in ("month", "year"):
        return None
    span = interval(start.isoformat()[: 7 if precision == "month" else 4], precision)
    return None if span is None else span[1]


def _context(question: Row) -> Sequence[Row]:
    return question.get("news_context") or ()


def context_not_after_forecast(questions: Sequence[Row], rules: NewsContextRules) -> Checked:
    for question in questions:
        forecast = as_day(question.get("forecast_date"))
        problems = (_chunk_problem(chunk, forecast, rules) for chunk in _context(question))
        yield str(question["question_id"]), next((p for p in problems if p is not None), None)


def _chunk_problem(chunk: Row, forecast: date | None, rules: NewsContextRules) -> str | None:
    chunk_id = str(chunk.get("chunk_id"))
    dated, precision = chunk.get("available_date"), chunk.get("date_precision")
    end = interval_end(dated, precision)
    if forecast is None or end is None:
        return f"chunk {chunk_id} dated {dated} ({precision}): no interval end to compare with {forecast}"
    if end > forecast:
        return f"chunk {chunk_id} published up to {end}, after the forecast date {forecast}"
    if rules.corpus_days is None:
        return None
    corpus = rules.corpus_days.get(chunk_id)
    if chunk_id in rules.corpus_problems:
        return rules.corpus_problems[chunk_id]
    if corpus is None:
        return f"chunk {chunk_id} is not in the corpus export"
    if corpus > forecast:
        return f"chunk {chunk_id}: the corpus dates it {corpus}, after the forecast date {forecast}"
    if corpus != end:
        return f"chunk {chunk_id}: the row says {end}, the corpus {corpus}"
    return None


def context_capped(questions: Sequence[Row], rules: NewsContextRules) -> Checked:
    for question in questions:
        context = _context(question)
        problem = None
        if len(context) > rules.k:
            problem = f"{len(context)} chunks, the cap is {rules.k} (futuresim.retrieval.k)"
        elif [chunk.get("rank") for chunk in context] != list(range(1, len(context) + 1)):
            problem = f"ranks {[chunk.get('rank') for chunk in context]} are not 1..{len(context)}"
        else:
            for chunk in context:
                words = word_count(str(chunk.get("text") or ""))
                if words > rules.chunk_tokens:
                    problem = f"chunk {chunk.get('chunk_id')}: {words} words, cap {rules.chunk_tokens}"
                    break
        yield str(question["question_id"]), problem
