"""Invariants of released MIRAI-style relation queries.

Rows are the monthly query files' records plus ``_file_month``. ``recorded`` maps (date, subject, object) to
what the cleaned GDELT quads hold for that day and pair: the relations and the source URLs.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
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


Recorded = Mapping[tuple[date, str, str], DayPair]


def recorded_from_quads(quads: Sequence[Row]) -> dict[tuple[date, str, str], DayPair]:
    recorded: dict[tuple[date, str, str], DayPair] = defaultdict(DayPair)
    for quad in quads:
        day = as_day(quad["date"])
        if day is None:
            continue
        entry = recorded[(day, str(quad["subject"]), str(quad["object"]))]
        entry.relations.add(str(quad["relation"]))
        entry.urls.update(str(url) for url in quad.get("urls") or ())
    return recorded


def check_mirai(
    rows: Sequence[Row], recorded: Recorded, months: Sequence[str], scope: str = "all"
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
        "every relation recorded that day and pair is an answer",
        _complete(rows, recorded),
    )
    report.check(
        "answer_roots_consistent", "answer roots are the first two digits of the answers", _roots(rows)
    )
    report.check(
        "history_before_query", "every horizon's last history date is before the query date", _history(rows)
    )
    report.check("urls_traceable", "the query's URLs are sources of that day's events", _urls(rows, recorded))
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


def _complete(rows: Sequence[Row], recorded: Recorded) -> Iterator[tuple[str, str | None]]:
    for row in rows:
        known = _recorded(row, recorded).relations
        missing = sorted(known - set(row.get("answers") or ()))
        yield row["query_id"], f"missing {missing}" if missing else None


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
