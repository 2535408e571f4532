"""A frequency baseline for MIRAI-style queries: what the pair did most often in a preceding window.

For a query (t, s, ?, o) the forecast is the ``top_k`` second-level relations that ``s`` took towards
``o`` (the direction matters) most often in the cleaned quads, counting only days in the window

    t - horizon_days - window_days < day <= t - horizon_days

so with ``horizon_days >= 1`` nothing from the query day or later is ever read: the same rule as a
forecaster's ``last_history_date`` (query date minus the horizon, inclusive). A relation's frequency is the
number of distinct days it was recorded for the pair in the window (each quad is one day, so a day with
many mentions counts once). Ties go to the relation seen more recently, then to the lower code. The
forecast lists the chosen codes under their roots, in MIRAI's final-answer form; a pair with no history in
the window gets the empty forecast ``{}``.

This is the strict-recurrence idea of the paper's Recurrency baseline turned into a set forecast of a
fixed size, in the spirit of the agent that answered with "the top three frequent relations"; the paper's
own baseline numbers are not reproduced by it (they were fitted on another database and cut-off).

Quad rows that cannot be used (no date, no subject or object, a relation that is not a three-digit code
under a root, or one that is not in the shipped CAMEO table) are skipped and counted by reason, so the
baseline never forecasts a code the scorer would count as invalid.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from almanac.core.io import read_parquet
from almanac.mirai.cameo import is_cameo_code, is_relation_code

HISTORY_COLUMNS = ("date", "subject", "relation", "object")


@dataclass(frozen=True)
class BaselineConfig:
    window_days: int = 365  # days of history before the cut-off (the paper's agent looked back a year)
    top_k: int = 3  # relations forecast per query
    horizon_days: int = 1  # cut-off = query date - horizon_days (inclusive); >= 1 keeps the query day out

    def __post_init__(self) -> None:
        if self.window_days < 1:
            raise ValueError("scorer.baseline.window_days must be >= 1")
        if self.top_k < 1:
            raise ValueError("scorer.baseline.top_k must be >= 1")
        if self.horizon_days < 1:
            raise ValueError("scorer.baseline.horizon_days must be >= 1 (0 would read the query day)")


@dataclass
class History:
    """Recorded days of each directed pair's relations, and the quad rows that could not be used."""

    by_pair: dict[tuple[str, str], list[tuple[date, str]]] = field(default_factory=dict)
    skipped: Counter[str] = field(default_factory=Counter)


def window(query_date: date, config: BaselineConfig) -> tuple[date, date]:
    """First and last day (both inclusive) the baseline may read for a query of ``query_date``."""
    last = query_date - timedelta(days=config.horizon_days)
    return last - timedelta(days=config.window_days - 1), last


def build_history(rows: Iterable[Mapping[str, Any]]) -> History:
    history = History()
    seen: set[tuple[str, str, date, str]] = set()
    for row in rows:
        day, subject, obj, relation = row["date"], row["subject"], row["object"], row["relation"]
        if not isinstance(day, date):
            history.skipped["no_date"] += 1
        elif not (isinstance(subject, str) and subject and isinstance(obj, str) and obj):
            history.skipped["no_pair"] += 1
        elif not is_relation_code(relation):
            history.skipped["not_a_relation_code"] += 1
        elif not is_cameo_code(relation):
            history.skipped["not_in_cameo"] += 1
        elif (subject, obj, day, relation) not in seen:  # a repeated quad adds no new day
            seen.add((subject, obj, day, relation))
            history.by_pair.setdefault((subject, obj), []).append((day, relation))
    return history


def read_history(path: str | Path) -> History:
    """The columns of quads.parquet the baseline needs; a missing column is a clear error."""
    names = pq.read_schema(path).names
    missing = [name for name in HISTORY_COLUMNS if name not in names]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    return build_history(read_parquet(path, columns=list(HISTORY_COLUMNS)).to_pylist())


def frequency_forecast(
    history: History, subject: str, obj: str, query_date: date, config: BaselineConfig
) -> dict[str, list[str]]:
    """The top_k most frequent relations of (subject, object) in the query's window, by root."""
    first, last = window(query_date, config)
    counts: Counter[str] = Counter()
    latest: dict[str, date] = {}
    for day, relation in history.by_pair.get((subject, obj), ()):
        if first <= day <= last:
            counts[relation] += 1
            latest[relation] = max(latest.get(relation, day), day)
    ranked = sorted(counts, key=lambda code: (-counts[code], -latest[code].toordinal(), code))
    forecast: dict[str, list[str]] = {}
    for code in sorted(ranked[: config.top_k]):
        forecast.setdefault(code[:2], []).append(code)
    return forecast


def baseline_predictions(
    queries: pa.Table | Sequence[Mapping[str, Any]], history: History, config: BaselineConfig
) -> dict[str, dict[str, list[str]]]:
    """query_id -> the baseline's forecast, for every query."""
    rows = (
        queries.select(["query_id", "date", "subject", "object"]).to_pylist()
        if isinstance(queries, pa.Table)
        else list(queries)
    )
    return {
        row["query_id"]: frequency_forecast(history, row["subject"], row["object"], row["date"], config)
        for row in rows
    }
