"""Invariants of the FutureSim question set (``data/futuresim/questions/``).

Rows are the set's records plus ``_split_dir`` (the ``<split>.parquet`` they were read from); evidence
rows are what each search of the date repair and answerability filters returned (question, check, cap
day, chunk, article, publish day). ``articles`` maps an article id to its corpus publish day, so that an
evidence row's date is the corpus's, not what the filter recorded.

Leak-free readings: a repaired resolution date only moves earlier and never before its split's window
(FutureSim drops those questions); a question still opens strictly before it resolves; nothing a role
was shown during repair was published after that pass's cap, and every repair cap is on or before the
OpenForesight resolution date.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from almanac.check.common import Checked, split_matches_folder, unique_ids
from almanac.check.dates import as_day, month_of
from almanac.check.report import StyleReport

Row = Mapping[str, Any]


def check_futuresim(
    rows: Sequence[Row],
    evidence: Sequence[Row],
    months: Mapping[str, Sequence[str]],
    articles: Mapping[str, date] | None,
    scope: str = "all",
) -> StyleReport:
    report = StyleReport("futuresim", scope, rows=len(rows))
    report.check("ids_unique", "question_id unique across all splits", unique_ids(rows, "question_id"))
    report.check(
        "split_matches_folder",
        "the row's split is the file it was released in",
        split_matches_folder(rows, "question_id"),
    )
    report.check(
        "original_resolution_in_split",
        "the OpenForesight resolution date falls in a month of the row's split",
        _original_in_split(rows, months),
    )
    report.check(
        "repaired_not_before_split_start",
        "split start <= repaired resolution date <= OpenForesight resolution date",
        _repaired_in_window(rows, months),
    )
    report.check(
        "start_before_resolution", "question start date < repaired resolution date", _start_before(rows)
    )
    released = {str(row["question_id"]): row for row in rows}
    report.check(
        "evidence_of_released_question",
        "every evidence row belongs to a released question",
        _owned(evidence, released),
    )
    report.check(
        "evidence_not_after_cap",
        "no retrieved chunk was published after its search's cap (corpus date when traceable)",
        _not_after_cap(evidence, articles),
    )
    report.check(
        "repair_cap_not_after_resolution",
        "every repair search is capped on or before the OpenForesight resolution date",
        _repair_caps(evidence, released),
    )
    if articles is not None:
        report.check(
            "evidence_traceable",
            "every evidence chunk's article is in the corpus, with the publish day recorded",
            _traceable(evidence, articles),
        )
    return report


def _evidence_id(row: Row) -> str:
    return f"{row['question_id']}:{row['check']}:{row['chunk_id']}"


def _original_in_split(rows: Sequence[Row], months: Mapping[str, Sequence[str]]) -> Checked:
    for row in rows:
        day = as_day(row.get("resolution_date_original"))
        allowed = set(months.get(str(row.get("split")), ()))
        if day is None:
            yield row["question_id"], "no original resolution date"
        else:
            bad = month_of(day) not in allowed
            yield row["question_id"], f"{day} not in {sorted(allowed)}" if bad else None


def _repaired_in_window(rows: Sequence[Row], months: Mapping[str, Sequence[str]]) -> Checked:
    for row in rows:
        repaired, original = as_day(row.get("resolution_date")), as_day(row.get("resolution_date_original"))
        split_months = months.get(str(row.get("split"))) or ()
        if repaired is None or original is None or not split_months:
            yield row["question_id"], "missing resolution date or split window"
            continue
        start = date.fromisoformat(f"{min(split_months)}-01")
        if repaired < start:
            yield row["question_id"], f"repaired {repaired} before the {row['split']} start {start}"
        elif repaired > original:
            yield row["question_id"], f"repaired {repaired} after the original {original}"
        else:
            yield row["question_id"], None


def _start_before(rows: Sequence[Row]) -> Checked:
    for row in rows:
        start, end = as_day(row.get("question_start_date")), as_day(row.get("resolution_date"))
        bad = start is None or end is None or not start < end
        yield row["question_id"], f"start {start} not before resolution {end}" if bad else None


def _owned(evidence: Sequence[Row], released: Mapping[str, Row]) -> Checked:
    for row in evidence:
        yield _evidence_id(row), None if str(row["question_id"]) in released else "no such released question"


def _not_after_cap(evidence: Sequence[Row], articles: Mapping[str, date] | None) -> Checked:
    for row in evidence:
        cap = as_day(row.get("cap_date"))
        recorded = as_day(row.get("publish_date"))
        published = (articles or {}).get(str(row.get("article_id")), recorded)
        if cap is None or published is None:
            yield _evidence_id(row), "no cap or publish date"
        else:
            yield _evidence_id(row), f"published {published} after its cap {cap}" if published > cap else None


def _repair_caps(evidence: Sequence[Row], released: Mapping[str, Row]) -> Checked:
    for row in evidence:
        question = released.get(str(row["question_id"]))
        if not str(row["check"]).startswith("repair_") or question is None:
            continue
        cap, original = as_day(row.get("cap_date")), as_day(question.get("resolution_date_original"))
        bad = cap is None or original is None or cap > original
        yield _evidence_id(row), f"repair cap {cap} after the original resolution {original}" if bad else None


def _traceable(evidence: Sequence[Row], articles: Mapping[str, date]) -> Checked:
    for row in evidence:
        article = str(row.get("article_id"))
        if article not in articles:
            yield _evidence_id(row), f"article {article} not in the corpus"
        else:
            recorded = as_day(row.get("publish_date"))
            bad = recorded != articles[article]
            yield _evidence_id(row), f"recorded {recorded}, corpus {articles[article]}" if bad else None
