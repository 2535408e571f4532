"""Invariants of the FutureSim retrieval contexts released beside OpenForesight splits.

The checker's own reading of the rule (README "FutureSim corpus and search"), not the pipeline's code: a
question's cut-off is ``cutoff_months`` calendar months before the first day its resolution date may mean
(a day is itself; "2025-07" is July 1), the day clamped to the end of a shorter month; every retrieved chunk
must be a chunk of the corpus export whose *available* day (its article's last possible publish day) is
on or before that cut-off. That day is the corpus's: the chunk is traced to its article through the chunk
export (its id must be the content hash of article id, ordinal and text, so an article id cannot be swapped)
and the article's publish date and precision are read from the corpus files (``data/articles/``), never from
the chunk table's own ``available_date``, which could be back-dated.
"""

from __future__ import annotations

import calendar
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import date
from typing import Any

from almanac.check.dates import article_last_day, as_day
from almanac.check.text import tokens
from almanac.core.ids import canonical_url, content_id

Row = Mapping[str, Any]


def cutoff_months(params: Mapping[str, Any]) -> int:
    section = ((params.get("futuresim") or {}).get("retrieval")) or {}
    return int(section.get("cutoff_months", 1))


def expected_cutoff(resolution: date, precision: str, months: int) -> date | None:
    """None for a precision the rule does not know (reported, never guessed)."""
    if precision == "day":
        first = resolution
    elif precision == "month":
        first = resolution.replace(day=1)
    elif precision == "year":
        first = date(resolution.year, 1, 1)
    else:
        return None
    year, month = divmod(first.year * 12 + first.month - 1 - months, 12)
    return date(year, month + 1, min(first.day, calendar.monthrange(year, month + 1)[1]))


def _key(row: Row) -> str:
    return f"{row.get('question_id')}#{row.get('rank')}"


def cutoff_follows_rule(
    retrieval: Sequence[Row], questions: Mapping[str, Row], months: int
) -> Iterator[tuple[str, str | None]]:
    """Each row's question is released with the same split and resolution date, and its cut-off is the
    rule's for that resolution date and the question's own precision."""
    for row in retrieval:
        question = questions.get(str(row.get("question_id")))
        if question is None:
            yield _key(row), "no released question with this id"
            continue
        resolution = as_day(question.get("resolution_date"))
        precision = str(question.get("resolution_date_text_precision") or "day")
        expected = None if resolution is None else expected_cutoff(resolution, precision, months)
        if as_day(row.get("resolution_date")) != resolution or row.get("split") != question.get("split"):
            yield _key(row), "resolution date or split differs from the released question"
        elif expected is None:
            yield _key(row), f"no cut-off rule for resolution {resolution} ({precision})"
        elif as_day(row.get("cutoff_date")) != expected:
            yield _key(row), f"cut-off {row.get('cutoff_date')} != {expected} ({months} month(s) before)"
        else:
            yield _key(row), None


def corpus_chunk_days(
    chunks: Iterable[Row], articles: Mapping[str, Row]
) -> tuple[dict[str, date], dict[str, str]]:
    """(chunk id -> last day its article may be published, chunk id -> why it has no such day).

    ``chunks``: rows of the chunk export (chunk_id, article_id, ordinal, text); ``articles``: corpus rows
    by article id (publish_date, date_precision)."""
    days: dict[str, date] = {}
    problems: dict[str, str] = {}
    for chunk in chunks:
        chunk_id, article_id = str(chunk["chunk_id"]), str(chunk["article_id"])
        article = articles.get(article_id)
        if content_id(article_id, str(chunk["ordinal"]), str(chunk["text"])) != chunk_id:
            problems[chunk_id] = f"chunk id is not the hash of article {article_id}, its ordinal and text"
        elif article is None:
            problems[chunk_id] = f"article {article_id} is not in the corpus"
        elif (day := article_last_day(article.get("publish_date"), article.get("date_precision"))) is None:
            problems[chunk_id] = f"article {article_id} dated {article.get('date_precision')!r}: no last day"
        else:
            days[chunk_id] = day
    return days, problems


def chunk_not_after_cutoff(
    retrieval: Sequence[Row], chunk_days: Mapping[str, date], problems: Mapping[str, str] | None = None
) -> Iterator[tuple[str, str | None]]:
    """Each retrieved chunk is a chunk of the corpus export available on or before the row's cut-off
    (the corpus's date, not the row's own claim, decides)."""
    for row in retrieval:
        if not row.get("rank"):
            continue  # the placeholder of a question with no chunk: nothing shown
        cutoff = as_day(row.get("cutoff_date"))
        available = chunk_days.get(str(row.get("chunk_id")))
        problem = (problems or {}).get(str(row.get("chunk_id")))
        if problem is not None:
            yield _key(row), problem
        elif available is None:
            yield _key(row), f"chunk {row.get('chunk_id')} is not in the corpus export"
        elif cutoff is None or available > cutoff:
            yield _key(row), f"chunk available {available} after the cut-off {cutoff}"
        elif as_day(row.get("available_date")) != available:
            yield _key(row), f"row says available {row.get('available_date')}, the corpus {available}"
        else:
            yield _key(row), None


def every_question_has_context(
    retrieval: Sequence[Row], questions: Mapping[str, Row]
) -> Iterator[tuple[str, str | None]]:
    covered = {str(row.get("question_id")) for row in retrieval}
    for question_id in sorted(questions):
        yield question_id, None if question_id in covered else "no retrieval rows"


def own_article_containment(params: Mapping[str, Any]) -> float:
    section = ((params.get("futuresim") or {}).get("retrieval")) or {}
    return float(section.get("own_article_containment", 0.5))


def _five_grams(text: str) -> set[tuple[str, ...]]:
    words = tokens(text)
    if len(words) < 5:
        return {tuple(words)} if words else set()
    return {tuple(words[i : i + 5]) for i in range(len(words) - 4)}


def not_own_article(
    retrieval: Sequence[Row], questions: Mapping[str, Row], source_texts: Mapping[str, str], threshold: float
) -> Iterator[tuple[str, str | None]]:
    """No retrieved chunk is its question's own source article: not its id, not its canonical URL, and not
    a copy of its text (``threshold`` or more of the chunk's word 5-grams in the source article, read from
    the corpus by the question's URL in ``source_texts``)."""
    for row in retrieval:
        question = questions.get(str(row.get("question_id")))
        if not row.get("rank") or question is None:
            continue  # a placeholder shows nothing; an unknown question is retrieval_covers_questions' case
        source_id, source_url = str(question.get("article_id") or ""), str(question.get("url") or "")
        hit_url = str(row.get("url") or "")
        chunk = _five_grams(str(row.get("text") or ""))
        source = source_texts.get(source_url)
        if source_id and str(row.get("article_id") or "") == source_id:
            yield _key(row), f"chunk of the question's own article {source_id}"
        elif source_url and hit_url and canonical_url(hit_url) == canonical_url(source_url):
            yield _key(row), f"chunk of the question's own URL {source_url}"
        elif source and chunk and len(chunk & _five_grams(source)) / len(chunk) >= threshold:
            yield _key(row), f"chunk copies the question's own article ({source_url})"
        else:
            yield _key(row), None
