"""``futurex_events``: candidate events from the project's own released material, one row each.

Three origins, each a released or filed question the rest of the project already checked:

- ``openforesight``: the questions of the released OpenForesight *test* split (Level 1 or Level 3
  later); a train or validation question is a reject (``in_training_split``): a lab may have trained on it;
- ``mirai``: every (date, subject, object) of the cleaned GDELT quads MIRAI's queries are drawn from
  (Level 2: several correct relations between a pair on a date; the sample's released queries have one);
- ``numeric``: the questions OpenForesight drops as numeric, at the validator (``invalid_non_numeric``,
  joined back to the generated rows) or the answer-type filter (joined back to the leakage output), with
  their reason (Level 4), the value and unit parsed.

Every event keeps the last day a forecaster may read (``information_cutoff``) and the day its outcome
was known (``resolution_date``); an event whose cut-off is not before its resolution is rejected.

A numeric question is a candidate only where the OpenForesight split would have put it in test (its
resolution month a test month, its outlet a test outlet when ``test_sources`` is set) and when no
train or validation question came from its article (``not_test_period``, ``article_in_training_split``).
Last, every candidate is compared with the training rows of the other styles (OpenForesight and
OpenForecast train and validation, ``almanac.crossstyle.near_duplicates``): a near-duplicate is excluded
(``cross_style_duplicate``) or kept with the reason in that column, per ``check.cross_style.action``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Final

from almanac.core.ids import content_id, source_domain
from almanac.core.rejects import StageLedger
from almanac.core.step import Drop, Step, apply_step
from almanac.crossstyle.near_duplicates import MARK_COLUMN, TrainingIndex
from almanac.crossstyle.released_rows import futurex_row
from almanac.foresight.date_parsing import parse_question_date
from almanac.futurex.draws import relation_option
from almanac.futurex.numbers import parse_quantity
from almanac.futurex.schema import ORIGINS
from almanac.futurex.series_events import from_series

EVENTS_STAGE: Final = "futurex_events"

Row = Mapping[str, Any]


def event_id(origin: str, source_id: str) -> str:
    return content_id("futurex-event", origin, source_id)


def _day(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    return None


@dataclass(frozen=True)
class CandidateRules:
    """What keeps a candidate out of every released train/validation split (the leak-free reading)."""

    test_months: frozenset[str] = frozenset()  # foresight.split.test_months
    test_sources: frozenset[str] = frozenset()  # foresight.split.test_sources (empty: every outlet)
    training_urls: frozenset[str] = frozenset()  # articles of released train/validation questions
    training: TrainingIndex | None = None  # other styles' train/validation rows
    action: str = "exclude"  # check.cross_style.action


def from_openforesight(row: Row) -> dict[str, Any] | Drop:
    """A released OpenForesight test question: its start date is the cut-off, its resolution the outcome."""
    if row.get("split") != "test":
        return Drop("in_training_split", f"released in the OpenForesight {row.get('split')} split")
    if row.get("cross_question_leak"):
        return Drop("cross_question_leak", "its answer appears in another question of its split")
    start, resolution = _day(row.get("question_start_date")), _day(row.get("resolution_date"))
    if start is None or resolution is None or start >= resolution:
        return Drop("cutoff_not_before_resolution", f"start {start}, resolution {resolution}")
    published = _day(row.get("article_publish_date")) or resolution
    return {
        "event_id": event_id("openforesight", row["question_id"]),
        "origin": "openforesight",
        "source_id": row["question_id"],
        "question": row["question_title"],
        "background": row["background"],
        "answers": [row["answer"]],
        "answer_type": row["answer_type"],
        "answer_class": row.get("answer_class"),
        "value": None,
        "unit": None,
        "information_cutoff": start,
        "resolution_date": resolution,
        "news_source": row["news_source"],
        "source_day": published,
        "resolution_source": row["url"],
    }


def from_day_pair(pair: Row, labels: Mapping[str, str]) -> dict[str, Any] | Drop:
    """A (date, subject, object) of the cleaned GDELT quads: every relation recorded that day between the
    pair is a correct option (MIRAI's answer set); a forecaster reads history up to the day before."""
    day = _day(pair.get("date"))
    if day is None:
        return Drop("cutoff_not_before_resolution", "the day-pair has no date")
    cutoff = day - timedelta(days=1)
    answers = sorted(set(pair.get("relations") or ()))
    if not answers:
        return Drop("no_answers", "the day-pair has no relation")
    subject, obj = pair["subject"], pair["object"]
    when = f"{day:%B} {day.day}, {day.year}"
    question = (
        f"Which actions will {subject} take towards {obj} on {when}, as GDELT records them? "
        "Choose every option that applies (CAMEO relation codes)."
    )
    background = (
        f"Question start date: {cutoff.isoformat()}. Countries are ISO-3166 alpha-3 codes; an action counts "
        "when the cleaned GDELT events of that day record it between the two."
    )
    return {
        "event_id": event_id("mirai", pair["pair_id"]),
        "origin": "mirai",
        "source_id": pair["pair_id"],
        "question": question,
        "background": background,
        "answers": [relation_option(code, labels) for code in answers],
        "answer_type": "relation set",
        "answer_class": "relation",
        "value": None,
        "unit": None,
        "information_cutoff": cutoff,
        "resolution_date": day,
        "news_source": "gdelt",  # one database, many outlets: the cap counts it as one source
        "source_day": day,
        "resolution_source": f"GDELT events of {day.isoformat()} ({len(pair.get('urls') or ())} source URLs)",
    }


def from_numeric(row: Row, reason: str, rules: CandidateRules) -> dict[str, Any] | Drop:
    """A question answer_type dropped as numeric: the outcome is public from its article's day (as
    OpenForesight's date stage clamps it), and the cut-off is its start, at latest the day before."""
    quantity = parse_quantity(str(row.get("answer") or ""))
    if quantity is None:
        return Drop("numeric_unparseable", f"answer {row.get('answer')!r} is not one number with a unit")
    published = _day(row.get("article_publish_date"))
    if published is None:
        return Drop("no_article_date", "the source article has no publish date")
    outlet = str(row.get("news_source") or source_domain(str(row["url"])))
    if f"{published:%Y-%m}" not in rules.test_months or (
        rules.test_sources and outlet not in rules.test_sources
    ):
        return Drop("not_test_period", f"resolves {published} at {outlet}: the split would not make it test")
    if str(row.get("url")) in rules.training_urls:
        return Drop("article_in_training_split", "a released train/validation question has its article")
    deadline = parse_question_date(str(row.get("resolution_date_text") or ""))
    if deadline is not None and deadline < published:
        return Drop("resolution_before_article", f"deadline {deadline} before the article of {published}")
    start = parse_question_date(str(row.get("question_start_date_text") or ""))
    latest = published - timedelta(days=1)
    cutoff = latest if start is None else min(start, latest)
    value, unit = quantity
    return {
        "event_id": event_id("numeric", row["question_id"]),
        "origin": "numeric",
        "source_id": row["question_id"],
        "question": f"{row['question_title']} Answer with one number in {unit}.",
        "background": row["background"],
        "answers": [str(row["answer"])],
        "answer_type": row["answer_type"],
        "answer_class": reason.removeprefix("answer_class_")
        if reason.startswith("answer_class_")
        else "numeric",
        "value": value,
        "unit": unit,
        "information_cutoff": cutoff,
        "resolution_date": published,
        "news_source": outlet,
        "source_day": published,
        "resolution_source": row["url"],
    }


def cross_style(event: dict[str, Any], rules: CandidateRules) -> dict[str, Any] | Drop:
    """Exclude or mark a candidate that repeats another style's training row."""
    why = rules.training.duplicate_of(futurex_row(event, "event_id")) if rules.training else None
    if why is not None and rules.action == "exclude":
        return Drop("cross_style_duplicate", why)
    return {**event, MARK_COLUMN: why}


def collect_events(
    foresight_rows: Sequence[Row],
    day_pairs: Sequence[Row],
    numeric_rows: Sequence[tuple[Row, str]],
    labels: Mapping[str, str],
    rules: CandidateRules | None = None,
    series_rows: Sequence[Row] = (),
) -> tuple[list[dict[str, Any]], StageLedger]:
    """Every candidate event of the three origins, each origin one keep-or-reject step, then the
    cross-style step over all of them."""
    rules = rules or CandidateRules()
    ledger = StageLedger(EVENTS_STAGE)
    kept = apply_step(
        foresight_rows,
        Step(from_openforesight, lambda row: row["question_id"], lambda row: f"openforesight:{row['split']}"),
        ledger,
    )
    kept += apply_step(
        day_pairs,
        Step(
            lambda pair: from_day_pair(pair, labels),
            lambda pair: pair["pair_id"],
            lambda _pair: "gdelt_quads",
        ),
        ledger,
    )
    kept += apply_step(
        numeric_rows,
        Step(
            lambda pair: from_numeric(pair[0], pair[1], rules),
            lambda pair: pair[0]["question_id"],
            lambda pair: f"answer_type:{pair[0]['month']}",
        ),
        ledger,
    )
    kept += apply_step(  # numeric series questions (almanac.futurex.series_events)
        series_rows,
        Step(from_series, lambda row: row["question_id"], lambda row: f"series:{row['split']}"),
        ledger,
    )
    kept = apply_step(
        kept,
        Step(
            lambda event: cross_style(event, rules),
            lambda e: e["event_id"],
            lambda e: f"{e['origin']}:{e['source_id']}",
        ),
        ledger,
        chained=True,  # the same events, already counted in by their origin's step
    )
    ledger.extra["cross_style_marked"] = sum(1 for event in kept if event.get(MARK_COLUMN))
    ledger.extra["events_by_origin"] = {
        origin: sum(1 for row in kept if row["origin"] == origin) for origin in ORIGINS
    }
    return kept, ledger
