"""Stage ``series_questions``: the observations table -> question splits by resolution month.

Writes ``data/series/splits/<split>/<resolution month>.parquet`` (the released rows of the series style,
laid out like OpenForesight's). Items are the (series, forecast date, horizon) pairs the builder tried
plus each series it left out whole: a pair makes one binary and one numeric question, or is a reject
(``not_resolved_yet``); a series without release dates is one reject (``unvintaged_series``) unless
``series.questions.allow_unvintaged``.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pyarrow as pa

from almanac.core.field_roles import Role
from almanac.core.ids import content_id
from almanac.core.months import validate_months
from almanac.core.rejects import StageLedger
from almanac.series.questions import KINDS, SeriesQuestionConfig, Skipped, build_questions

STAGE = "series_questions"
SPLITS = ("train", "validation", "test")

_KNOWN_VALUE = pa.struct(
    [
        pa.field("period_start", pa.date32()),
        pa.field("value", pa.float64()),
        pa.field("known_date", pa.date32()),
    ]
)
# A news chunk of the FutureSim index shown with a question (almanac.series.context), as FutureSim's
# retrieval rows hold it (almanac.futuresim.schema.RETRIEVAL_SCHEMA), nested in the question row.
CONTEXT_CHUNK = pa.struct(
    [
        pa.field("rank", pa.int16()),  # 1 = best
        pa.field("chunk_id", pa.string()),
        pa.field("article_id", pa.string()),
        pa.field("url", pa.string()),
        pa.field("available_date", pa.date32()),  # the end of its article's publication interval
        pa.field("date_precision", pa.string()),  # day | upper_bound
        pa.field("score", pa.float64()),
        pa.field("text", pa.string()),
    ]
)
QUESTION_SCHEMA = pa.schema(
    [
        pa.field("question_id", pa.string(), nullable=False),
        pa.field("series_id", pa.string(), nullable=False),
        pa.field("provider", pa.string(), nullable=False),
        pa.field("title", pa.string(), nullable=False),
        pa.field("unit", pa.string(), nullable=False),
        pa.field("frequency", pa.string(), nullable=False),
        pa.field("kind", pa.string(), nullable=False),  # binary | numeric
        pa.field("question", pa.string(), nullable=False),
        pa.field("forecast_date", pa.date32(), nullable=False),
        pa.field("resolution_date", pa.date32(), nullable=False),
        pa.field("horizon_days", pa.int32(), nullable=False),
        pa.field("prompt_values", pa.list_(_KNOWN_VALUE), nullable=False),  # as they stood on forecast_date
        pa.field("baseline_period", pa.date32(), nullable=False),
        pa.field("baseline_value", pa.float64(), nullable=False),
        pa.field("answer", pa.string(), nullable=False),  # yes | no, or the number as written
        pa.field("resolution_period", pa.date32(), nullable=False),
        pa.field("resolution_value", pa.float64(), nullable=False),
        pa.field("resolution_known_date", pa.date32(), nullable=False),
        pa.field("sigma", pa.float64(), nullable=True),  # numeric: FutureX Level-4 sigma
        pa.field("sigma_source", pa.string(), nullable=True),  # recent_values | fallback_relative
        pa.field("values_may_be_revised", pa.bool_(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("news_query", pa.string(), nullable=False),  # "" without a context search
        # up to futuresim.retrieval.k chunks available by forecast_date, best first (may be empty)
        pa.field("news_context", pa.list_(CONTEXT_CHUNK), nullable=False),
    ]
)

# What a forecaster is shown: the question (which names both dates), the series and the figures as they
# stood on the forecast date. The answer side includes sigma, measured on values known on the resolution date.
FIELD_ROLES: dict[str, Role] = {
    "question": "prompt",
    "kind": "prompt",
    "title": "prompt",
    "unit": "prompt",
    "frequency": "prompt",
    "forecast_date": "prompt",
    "resolution_date": "prompt",
    "horizon_days": "prompt",
    "prompt_values": "prompt",
    "baseline_period": "prompt",
    "baseline_value": "prompt",
    "answer": "answer",
    "resolution_period": "answer",
    "resolution_value": "answer",
    "resolution_known_date": "answer",
    "sigma": "answer",
    "sigma_source": "answer",
    "question_id": "provenance",
    "series_id": "provenance",
    "provider": "provenance",
    "values_may_be_revised": "provenance",
    "split": "provenance",
    "news_query": "provenance",
    "news_context": "prompt",
}


@dataclass(frozen=True)
class SeriesSplitConfig:
    """params ``series.split``: months by the questions' resolution date (the series have their own
    calendar: the bundled macro data ends in 2009, long before the news months)."""

    train_months: tuple[str, ...] = ()
    validation_months: tuple[str, ...] = ()
    test_months: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        months = [*self.train_months, *self.validation_months, *self.test_months]
        validate_months(months)
        if len(set(months)) != len(months):
            raise ValueError("series.split: a month is in two splits (or twice in one)")
        ordered = [sorted(m) for m in (self.train_months, self.validation_months, self.test_months) if m]
        if any(earlier[-1] >= later[0] for earlier, later in itertools.pairwise(ordered)):
            raise ValueError("series.split: train months < validation months < test months")

    def months(self) -> dict[str, tuple[str, ...]]:
        return {"train": self.train_months, "validation": self.validation_months, "test": self.test_months}


def build_release(
    rows: Sequence[Mapping[str, Any]], splits: SeriesSplitConfig, config: SeriesQuestionConfig
) -> tuple[dict[tuple[str, str], pa.Table], StageLedger]:
    """(split, resolution month) -> its questions (by series, then forecast date, horizon, kind)."""
    ledger = StageLedger(STAGE)
    grouped: dict[tuple[str, str], list[dict[str, Any]]] = {}
    questions = 0
    for index, item in enumerate(build_questions(rows, splits.months(), config)):
        if isinstance(item, Skipped):
            ledger.items_in += 1
            item_id = content_id(STAGE, item.series_id, item.reason, item.detail, str(index))
            ledger.reject(item_id, item.reason, item.detail, item.series_id)
            continue
        questions += 1
        resolution = item["resolution_date"]
        grouped.setdefault((item["split"], f"{resolution.year:04d}-{resolution.month:02d}"), []).append(item)
    if questions % len(KINDS):
        raise AssertionError(f"{STAGE}: {questions} questions is not {len(KINDS)} per (forecast, horizon)")
    ledger.items_in += questions // len(KINDS)
    ledger.items_out = questions // len(KINDS)
    ledger.extra["questions"] = questions
    ledger.extra["questions_by_split"] = {
        split: sum(len(v) for (s, _), v in grouped.items() if s == split) for split in SPLITS
    }
    tables = {key: pa.Table.from_pylist(grouped[key], schema=QUESTION_SCHEMA) for key in sorted(grouped)}
    return tables, ledger
