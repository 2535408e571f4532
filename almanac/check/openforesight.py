"""Invariants of released OpenForesight-style question splits.

Rows are the split files' records plus ``_split_dir`` (the folder they were read from). ``articles`` maps a
canonical URL to the cited article's date columns (``publish_date``, ``crawl_date`` and, when the corpus
records them, ``date_precision`` and ``date_source``); None for imported splits, whose rows carry their
article's date themselves and have no corpus to be traced to.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from almanac.check.common import Checked, split_matches_folder, unique_ids
from almanac.check.dates import as_day, month_of
from almanac.check.report import StyleReport
from almanac.check.retrieval import (
    chunk_not_after_cutoff,
    cutoff_follows_rule,
    every_question_has_context,
    not_own_article,
)
from almanac.check.text import (
    answer_tokens,
    answers_in,
    find_answer,
    is_organisation,
    is_person,
    ngram_index,
)
from almanac.core.outcomes import numbers_in, outcome_phrases
from almanac.core.params import with_split_months

SPLITS = ("train", "validation", "test")
PROMPT_FIELDS = ("question_title", "background", "resolution_criteria")
DEFENSIBLE_PRECISIONS = frozenset({"day", "upper_bound"})
Row = Mapping[str, Any]


def source_disjoint(params: Mapping[str, Any]) -> tuple[bool, tuple[str, ...]]:
    """(is the test split source-disjoint, its listed outlets or () when derived from the data)."""
    section = ((params.get("foresight") or {}).get("split")) or {}
    listed = tuple(str(source) for source in section.get("test_sources") or ())
    return bool(listed) or bool(section.get("source_disjoint_test", True)), listed


def split_months(params: Mapping[str, Any]) -> dict[str, list[str]]:
    """Each split's months: derived from params' months (almanac.core.params.split_months) unless given."""
    section = ((with_split_months(params).get("foresight") or {}).get("split")) or {}
    return {split: sorted(str(month) for month in section.get(f"{split}_months") or []) for split in SPLITS}


def check_openforesight(
    rows: Sequence[Row],
    months: Mapping[str, Sequence[str]],
    articles: Mapping[str, Mapping[str, Any]] | None,
    prompt_fields: Sequence[str] = PROMPT_FIELDS,
    scope: str = "all",
    retrieval: RetrievalContext | None = None,
    disjoint: tuple[bool, tuple[str, ...]] = (False, ()),
) -> StyleReport:
    """``disjoint``: ``source_disjoint(params)``; when on, no outlet has questions in test and elsewhere."""
    report = StyleReport("openforesight", scope, rows=len(rows))
    report.check("split_windows_ordered", "train months < validation months < test months", _ordered(months))
    report.check("ids_unique", "question_id unique across all splits", unique_ids(rows, "question_id"))
    report.check(
        "split_matches_folder",
        "the row's split is the folder it was released in",
        split_matches_folder(rows, "question_id"),
    )
    if disjoint[0]:
        report.check(
            "test_outlets_disjoint",
            "no outlet has questions both in test and in train/validation (and test only listed outlets)",
            _outlets_disjoint(rows, disjoint[1]),
        )
    report.check(
        "resolution_in_split_window", "resolution date falls in a month of its split", _window(rows, months)
    )
    report.check("start_before_resolution", "question start date < resolution date", _start_before(rows))
    if articles is not None:
        report.check(
            "article_traceable", "the cited URL is an article of the corpus", _traceable(rows, articles)
        )
        report.check(
            "article_date_defensible",
            "cited article dated to the day or bounded by its crawl, never after the crawl",
            _defensible(rows, articles),
        )
    articles = articles or {}
    report.check(
        "article_not_after_resolution", "article publish date <= resolution date", _not_after(rows, articles)
    )
    report.check(
        "start_not_after_article", "question start date <= article publish date", _start_ok(rows, articles)
    )
    report.check(
        "answer_not_in_prompt",
        f"answer absent from {', '.join(prompt_fields)} (folded, fuzzy, surname, acronym, partial name)",
        _no_leak(rows, prompt_fields),
    )
    report.check(
        "title_free_of_outcome",
        "no outcome phrase in the title, and no number in it that its source article states",
        _title_outcomes(rows, articles),
    )
    report.check(
        "cross_question_leak_flagged",
        "an answer shown in another question of the split is flagged",
        _cross(rows, prompt_fields),
    )
    if retrieval is not None:
        _check_retrieval(report, rows, retrieval, articles)
    return report


@dataclass(frozen=True)
class RetrievalContext:
    """The FutureSim retrieval rows released beside the splits, the corpus chunks' available days (from the
    corpus articles, almanac.check.retrieval.corpus_chunk_days), the cut-off in months (params
    ``futuresim.retrieval.cutoff_months``) and the chunks whose day could not be traced, with why."""

    rows: Sequence[Row]
    chunk_days: Mapping[str, date]
    cutoff_months: int
    chunk_problems: Mapping[str, str] = field(default_factory=dict)
    own_article_containment: float = 0.5  # params futuresim.retrieval.own_article_containment


def _check_retrieval(
    report: StyleReport, rows: Sequence[Row], retrieval: RetrievalContext, articles: Mapping[str, Row]
) -> None:
    questions = {str(row["question_id"]): row for row in rows}
    months = retrieval.cutoff_months
    report.check(
        "retrieval_covers_questions",
        "every released question has its retrieval context rows",
        every_question_has_context(retrieval.rows, questions),
    )
    report.check(
        "retrieval_cutoff_rule",
        f"a context's cut-off is {months} month(s) before the first day of its question's resolution",
        cutoff_follows_rule(retrieval.rows, questions, months),
    )
    report.check(
        "retrieval_not_after_cutoff",
        "every retrieved chunk is available on or before its question's cut-off (its corpus article's date)",
        chunk_not_after_cutoff(retrieval.rows, retrieval.chunk_days, retrieval.chunk_problems),
    )
    texts = {url: str(article.get("text") or "") for url, article in articles.items() if article.get("text")}
    report.check(
        "retrieval_not_own_article",
        "no retrieved chunk is its question's own source article (id, canonical URL or copied text)",
        not_own_article(retrieval.rows, questions, texts, retrieval.own_article_containment),
    )


def _ordered(months: Mapping[str, Sequence[str]]) -> Iterator[tuple[str, str | None]]:
    for earlier, later in (("train", "validation"), ("validation", "test"), ("train", "test")):
        if months[earlier] and months[later] and max(months[earlier]) >= min(months[later]):
            yield f"{earlier}<{later}", f"{max(months[earlier])} >= {min(months[later])}"
        else:
            yield f"{earlier}<{later}", None


def _outlets_disjoint(rows: Sequence[Row], listed: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    """Each test row whose outlet also has a train/validation row fails, and each of those rows too."""
    by_outlet: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        by_outlet[str(row.get("news_source"))].add("test" if row.get("split") == "test" else "other")
    for row in rows:
        outlet = str(row.get("news_source"))
        if row.get("split") == "test" and listed and outlet not in listed:
            yield row["question_id"], f"test outlet {outlet} is not a listed test source"
        elif by_outlet[outlet] == {"test", "other"}:
            yield row["question_id"], f"outlet {outlet} is in test and in train/validation"
        else:
            yield row["question_id"], None


def _window(rows: Sequence[Row], months: Mapping[str, Sequence[str]]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        resolution = as_day(row.get("resolution_date"))
        allowed = months.get(str(row.get("split")), ())
        if resolution is None:
            yield row["question_id"], "no resolution date"
        elif month_of(resolution) not in allowed:
            yield row["question_id"], f"resolves {resolution} outside {row.get('split')} {list(allowed)}"
        else:
            yield row["question_id"], None


def _start_before(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        start, resolution = as_day(row.get("question_start_date")), as_day(row.get("resolution_date"))
        if start is None or resolution is None:
            yield row["question_id"], "missing start or resolution date"
        else:
            yield (
                row["question_id"],
                None if start < resolution else f"start {start} >= resolution {resolution}",
            )


def _traceable(rows: Sequence[Row], articles: Mapping[str, Any]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        yield row["question_id"], None if row.get("url") in articles else f"no article {row.get('url')!r}"


def _defensible(
    rows: Sequence[Row], articles: Mapping[str, Mapping[str, Any]]
) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        article = articles.get(row.get("url") or "")
        if article is None:
            continue  # counted by article_traceable
        precision = article.get("date_precision", "day")  # a corpus without the column predates precision
        source = article.get("date_source")
        published, crawled = as_day(article.get("publish_date")), as_day(article.get("crawl_date"))
        if precision not in DEFENSIBLE_PRECISIONS:
            yield row["question_id"], f"article dated with {precision!r} precision"
        elif published is None:
            yield row["question_id"], "article has no publish date"
        elif crawled is not None and published > crawled:
            yield row["question_id"], f"published {published} after its crawl {crawled}"
        elif "date_source" in article and (precision == "upper_bound") != (source == "crawl_date"):
            yield row["question_id"], f"{precision!r} date from {source!r}: only a crawl date is a bound"
        elif precision == "upper_bound" and published != crawled:
            yield row["question_id"], f"upper bound {published} is not the crawl date {crawled}"
        else:
            yield row["question_id"], None


def _published(row: Row, articles: Mapping[str, Mapping[str, Any]]) -> Any:
    article = articles.get(row.get("url") or "")
    return as_day(article.get("publish_date")) if article else as_day(row.get("article_publish_date"))


def _not_after(
    rows: Sequence[Row], articles: Mapping[str, Mapping[str, Any]]
) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        published, resolution = _published(row, articles), as_day(row.get("resolution_date"))
        if published is None or resolution is None:
            yield row["question_id"], "missing article or resolution date"
        elif published > resolution:
            yield row["question_id"], f"article {published} after resolution {resolution}"
        else:
            yield row["question_id"], None


def _start_ok(
    rows: Sequence[Row], articles: Mapping[str, Mapping[str, Any]]
) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        published, start = _published(row, articles), as_day(row.get("question_start_date"))
        if published is None or start is None:
            yield row["question_id"], "missing article or start date"
        elif start > published:
            yield row["question_id"], f"starts {start} after its article {published}"
        else:
            yield row["question_id"], None


def _text(row: Row, name: str) -> str:
    """A prompt field's text; dates (the start date) are shown too but cannot spell an answer."""
    value = row.get(name)
    return value if isinstance(value, str) else ""


def _no_leak(rows: Sequence[Row], fields: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        person = is_person(row.get("answer_class"), row.get("answer_type"))
        organisation = is_organisation(row.get("answer_class"), row.get("answer_type"))
        found = None
        for name in fields:
            how = find_answer(str(row.get("answer") or ""), _text(row, name), person, organisation)
            if how is not None:
                found = f"{name}: {how}"
                break
        yield row["question_id"], found


def _title_outcomes(rows: Sequence[Row], articles: Mapping[str, Mapping[str, Any]]) -> Checked:
    """The article (published after the question starts) reports the outcome: a count the title shares
    with it ("41 of 80 seats"), or any outcome phrase ("up from 29", "by 14 votes to 9"), gives it away.
    Without the article text (imported splits) only the phrases are checked."""
    for row in rows:
        title = _text(row, "question_title")
        phrases = outcome_phrases(title)
        article_text = str((articles.get(row.get("url") or "") or {}).get("text") or "")
        shared = [
            number.text
            for number in numbers_in(title)
            if article_text and _states(article_text, number.value)
        ]
        if phrases:
            yield row["question_id"], f"outcome phrase {phrases[0]!r}"
        elif shared:
            yield row["question_id"], f"number {shared[0]!r} from the source article"
        else:
            yield row["question_id"], None


def _states(text: str, value: str) -> bool:
    """``value`` (digits without thousands commas, or a number word) as a whole number in ``text``."""
    plain = re.sub(r"(?<=\d),(?=\d{3})", "", text)
    return re.search(rf"(?<![\w.]){re.escape(value)}(?![\w]|\.\d)", plain, re.IGNORECASE) is not None


def _cross(rows: Sequence[Row], fields: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    by_split: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_split[str(row.get("split"))].append(row)
    for split_rows in by_split.values():
        wanted = [
            (str(row["question_id"]), answer_tokens(str(row.get("answer") or ""))) for row in split_rows
        ]
        index = ngram_index(wanted)
        longest = max((len(tokens) for _, tokens in wanted), default=0)
        revealed: dict[str, str] = {}
        for row in split_rows:
            text = " \n ".join(_text(row, name) for name in fields)
            for item_id in answers_in(text, index, longest) - {row["question_id"]}:
                revealed.setdefault(item_id, str(row["question_id"]))
        for row in split_rows:
            other = revealed.get(row["question_id"])
            unflagged = other is not None and not row.get("cross_question_leak")
            yield row["question_id"], f"answer shown in {other}, not flagged" if unflagged else None
