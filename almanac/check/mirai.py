"""Invariants of released MIRAI-style relation queries.

Rows are the monthly query files' records plus ``_file_month``. ``recorded`` maps (date, subject, object) to
what the cleaned GDELT quads hold for that day and pair: per relation its daily mentions and source URLs.
``texts`` are the URLs whose cleaned article text survived (gdelt_articles); with the thresholds of
``relation_split`` they let the checker redo each query's admission under the recipe the row names.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from almanac.check.common import unique_ids
from almanac.check.dates import as_day, month_of
from almanac.check.report import StyleReport

Row = Mapping[str, Any]


@dataclass
class DayPair:
    relations: set[str] = field(default_factory=set)
    urls: set[str] = field(default_factory=set)
    mentions: dict[str, int] = field(default_factory=dict)  # relation -> daily mentions of the event
    event_urls: dict[str, set[str]] = field(default_factory=dict)  # relation -> the event's source URLs


@dataclass(frozen=True)
class Thresholds:
    """``params.yaml: relation_split`` test thresholds (the defaults are MIRAI's)."""

    min_daily_mentions: int = 100
    min_articles: int = 5
    answers_need_text: bool = True  # paper: answers are the day-pair's events with text (the authors')
    admission: str = "every"  # paper: every loud event has min_articles texts (the authors'), or any

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> Thresholds:
        section = params.get("relation_split") or {}
        return cls(
            int(section.get("min_daily_mentions", cls.min_daily_mentions)),
            int(section.get("min_articles", cls.min_articles)),
            bool(section.get("answers_need_text", cls.answers_need_text)),
            str(section.get("admission", cls.admission)),
        )


Recorded = Mapping[tuple[date, str, str], DayPair]


def recorded_from_quads(quads: Sequence[Row]) -> dict[tuple[date, str, str], DayPair]:
    recorded: dict[tuple[date, str, str], DayPair] = defaultdict(DayPair)
    for quad in quads:
        day = as_day(quad["date"])
        if day is None:
            continue
        entry = recorded[(day, str(quad["subject"]), str(quad["object"]))]
        relation = str(quad["relation"])
        urls = {str(url) for url in quad.get("urls") or ()}
        entry.relations.add(relation)
        entry.urls.update(urls)
        entry.mentions[relation] = entry.mentions.get(relation, 0) + int(quad.get("num_daily_mentions") or 0)
        entry.event_urls.setdefault(relation, set()).update(urls)
    return recorded


def check_mirai(
    rows: Sequence[Row],
    recorded: Recorded,
    months: Sequence[str],
    scope: str = "all",
    thresholds: Thresholds = Thresholds(),
    texts: Set[str] = frozenset(),
) -> StyleReport:
    report = StyleReport("mirai", scope, rows=len(rows))
    report.check("ids_unique", "query_id unique across months", unique_ids(rows, "query_id"))
    report.check("month_in_scope", "the query's month is one of params months", _in_scope(rows, months))
    report.check("date_in_month", "the query date lies in its month (row and file)", _in_month(rows))
    report.check(
        "answers_recorded_that_day",
        "every answer relation is a cleaned event of that date and pair",
        _answers(rows, recorded),
    )
    report.check(
        "answers_complete",
        "every relation recorded that day and pair is an answer (paper: every one with article text)",
        _complete(rows, recorded, thresholds, texts),
    )
    report.check(
        "answers_have_text",
        "paper: every answer is an event one of whose articles kept its text (the authors' data)",
        _with_text(rows, recorded, thresholds, texts),
    )
    report.check(
        "answer_roots_consistent", "answer roots are the first two digits of the answers", _roots(rows)
    )
    report.check(
        "history_before_query", "every horizon's last history date is before the query date", _history(rows)
    )
    report.check("urls_traceable", "the query's URLs are sources of that day's events", _urls(rows, recorded))
    report.check(
        "test_thresholds_met",
        "the query passes its recipe's test thresholds (paper: every loud event, articles with text)",
        _thresholds(rows, recorded, thresholds, texts),
    )
    return report


def _key(row: Row) -> tuple[date, str, str] | None:
    day = as_day(row.get("date"))
    return None if day is None else (day, str(row.get("subject")), str(row.get("object")))


def _recorded(row: Row, recorded: Recorded) -> DayPair:
    key = _key(row)
    return recorded[key] if key is not None and key in recorded else DayPair()


def _in_scope(rows: Sequence[Row], months: Sequence[str]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        yield row["query_id"], None if row.get("month") in months else f"month {row.get('month')!r}"


def _in_month(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        day = as_day(row.get("date"))
        months = {str(row.get("month")), str(row["_file_month"])}
        if day is None or months != {month_of(day)}:
            yield row["query_id"], f"date {row.get('date')} in month {sorted(months)}"
        else:
            yield row["query_id"], None


def _answers(rows: Sequence[Row], recorded: Recorded) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        known = _recorded(row, recorded).relations
        extra = sorted(set(row.get("answers") or ()) - known)
        empty = not row.get("answers")
        yield (
            row["query_id"],
            "no answers" if empty else (f"not recorded that day: {extra}" if extra else None),
        )


def _texts_matter(row: Row, limits: Thresholds) -> bool:
    return row.get("recipe") == "paper" and limits.answers_need_text


def _answer_set(pair: DayPair, row: Row, limits: Thresholds, texts: Set[str]) -> set[str]:
    """The relations the row's answers must be: the day-pair's events (paper: those with text)."""
    if not _texts_matter(row, limits):
        return set(pair.relations)
    return {relation for relation in pair.relations if pair.event_urls.get(relation, set()) & texts}


def _complete(
    rows: Sequence[Row], recorded: Recorded, limits: Thresholds, texts: Set[str]
) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        expected = _answer_set(_recorded(row, recorded), row, limits, texts)
        missing = sorted(expected - set(row.get("answers") or ()))
        yield row["query_id"], f"missing {missing}" if missing else None


def _with_text(
    rows: Sequence[Row], recorded: Recorded, limits: Thresholds, texts: Set[str]
) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        if not _texts_matter(row, limits):
            yield row["query_id"], None
            continue
        pair = _recorded(row, recorded)
        bare = sorted(r for r in row.get("answers") or () if not pair.event_urls.get(r, set()) & texts)
        yield row["query_id"], f"answers without any article text: {bare}" if bare else None


def _roots(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        roots = sorted({str(code)[:2] for code in row.get("answers") or ()})
        given = sorted(row.get("answer_roots") or ())
        yield row["query_id"], None if roots == given else f"roots {given} for answers {roots}"


def _history(rows: Sequence[Row]) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        day = as_day(row.get("date"))
        late = [
            str(horizon.get("last_history_date"))
            for horizon in row.get("horizons") or ()
            if day is None or (last := as_day(horizon.get("last_history_date"))) is None or last >= day
        ]
        yield row["query_id"], f"history up to {late} on query day {day}" if late else None


def _urls(rows: Sequence[Row], recorded: Recorded) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        known = _recorded(row, recorded).urls
        urls = set(row.get("urls") or ())
        stray = sorted(urls - known)
        yield (
            row["query_id"],
            "no source URL" if not urls else (f"unknown URLs {stray[:2]}" if stray else None),
        )


def _thresholds(
    rows: Sequence[Row], recorded: Recorded, limits: Thresholds, texts: Set[str]
) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        pair = _recorded(row, recorded)
        recipe = row.get("recipe")
        if recipe == "paper":
            yield row["query_id"], _paper_problem(row, pair, limits, texts)
        elif recipe == "relaxed":
            mentions = sum(pair.mentions.values())
            short = mentions < limits.min_daily_mentions or len(pair.urls) < limits.min_articles
            yield (
                row["query_id"],
                f"day-pair has {mentions} mentions, {len(pair.urls)} URLs" if short else None,
            )
        else:
            yield row["query_id"], f"unknown recipe {recipe!r}"


def _paper_problem(row: Row, pair: DayPair, limits: Thresholds, texts: Set[str]) -> str | None:
    """Why a paper-recipe query breaks the per-event rule: each test relation must be an event of the day
    with >= min_daily_mentions mentions and >= min_articles source URLs whose cleaned text survived, and
    under ``admission: every`` so must every other event of the pair's answer set with those mentions."""
    tested = set(row.get("test_relations") or ())
    if not tested:
        return "no test relation"
    if not tested <= set(row.get("answers") or ()):
        return f"test relations {sorted(tested - set(row.get('answers') or ()))} are not answers"
    loud = {
        r
        for r in _answer_set(pair, row, limits, texts)
        if pair.mentions.get(r, 0) >= limits.min_daily_mentions
    }
    asked = sorted(tested | loud) if limits.admission == "every" else sorted(tested)
    for relation in asked:
        mentions = pair.mentions.get(relation, 0)
        with_text = len(pair.event_urls.get(relation, set()) & texts)
        if mentions < limits.min_daily_mentions or with_text < limits.min_articles:
            return f"event {relation}: {mentions} mentions, {with_text} articles with text"
    return None
