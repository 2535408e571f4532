"""Readers from the shapes users have series in, each to rows of :data:`OBSERVATION_SCHEMA`.

A reader takes bytes already on disk (a downloaded API response or an export) and yields rows; what a
record cannot be read as (a bad date, a non-number other than the provider's missing marker) raises
:class:`SeriesRecordError`, which the stage files as that record's reject; one bad record never fails
the file.

- FRED / ALFRED ``series/observations`` JSON: with ``realtime_start`` per observation (ALFRED's vintages,
  asked with ``realtime_start=1776-07-04``) every vintage is a row known on its own ``realtime_start``;
  FRED's missing marker is ``"."``.
- DBnomics ``/series`` JSON (``series.docs[*]`` with parallel ``period_start_day`` and ``value`` lists):
  DBnomics keeps only current values, so rows are dated by the period's end plus ``lag_days`` and
  flagged ``revised_unknown``; ``"NA"`` is missing.
- CSV exports: a date column, a value column and optionally a release-date column (``known_column``).
- OHLC price tables (Yahoo Finance style: Date, Open, High, Low, Close, Adj Close, Volume): the close is
  known at the end of its own day (``market_close``); "Adj Close" is not used, since later dividends and
  splits rewrite it.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator, Mapping
from datetime import date, timedelta
from typing import Any

from almanac.series.schema import SeriesMeta, period_end

Row = dict[str, Any]
FRED_MISSING = "."
DBNOMICS_MISSING = ("NA", "", None)


class SeriesRecordError(ValueError):
    """One record of a series file that cannot be read; ``record`` names it."""

    def __init__(self, record: str, reason: str) -> None:
        super().__init__(f"{record}: {reason}")
        self.record = record
        self.reason = reason


def _day(raw: object, record: str) -> date:
    try:
        return date.fromisoformat(str(raw).strip()[:10])
    except ValueError:
        raise SeriesRecordError(record, f"not a date: {str(raw)[:40]!r}") from None


def _number(raw: object, record: str, missing: tuple[object, ...]) -> float | None:
    if raw in missing or (isinstance(raw, str) and raw.strip() in missing):
        return None
    try:
        value = float(str(raw).replace(",", "").strip())
    except ValueError:
        raise SeriesRecordError(record, f"not a number: {str(raw)[:40]!r}") from None
    if not math.isfinite(value):
        raise SeriesRecordError(record, f"not a finite number: {raw!r}")
    return value


def _row(
    meta: SeriesMeta, start: date, value: float | None, known: date, rule: str, revised: bool, source: str
) -> Row:
    return {
        "series_id": meta.series_id,
        "provider": meta.provider,
        "title": meta.title,
        "unit": meta.unit,
        "frequency": meta.frequency,
        "period_start": start,
        "period_end": period_end(start, meta.frequency),
        "value": value,
        "known_date": known,
        "known_date_rule": rule,
        "revised_unknown": revised,
        "source_file": source,
    }


def fred_observations(payload: bytes, meta: SeriesMeta, source: str) -> Iterator[Row | SeriesRecordError]:
    document = json.loads(payload)
    for index, item in enumerate(document.get("observations") or []):
        record = f"{source}#observations[{index}]"
        try:
            start = _day(item["date"], record)
            value = _number(item.get("value"), record, (FRED_MISSING,))
            vintage = item.get("realtime_start")
            if vintage is None:
                raise SeriesRecordError(
                    record, "no realtime_start: ask FRED with realtime_start/realtime_end"
                )
            known = _day(vintage, record)
            if known < start:
                raise SeriesRecordError(record, f"published {known} before its period starts {start}")
            yield _row(meta, start, value, known, "vintage", False, source)
        except (SeriesRecordError, KeyError, TypeError) as error:
            yield (
                error
                if isinstance(error, SeriesRecordError)
                else SeriesRecordError(record, f"missing field {error}")
            )


def dbnomics_series(payload: bytes, source: str, lag_days: int) -> Iterator[Row | SeriesRecordError]:
    document = json.loads(payload)
    for doc_index, doc in enumerate(((document.get("series") or {}).get("docs")) or []):
        meta = SeriesMeta(
            f"dbnomics/{doc.get('provider_code')}/{doc.get('dataset_code')}/{doc.get('series_code')}",
            "dbnomics",
            str(doc.get("series_name") or doc.get("series_code") or ""),
            str((doc.get("dimensions") or {}).get("unit") or doc.get("unit") or ""),
            str(doc.get("@frequency") or ""),
        )
        starts, values = doc.get("period_start_day") or [], doc.get("value") or []
        if len(starts) != len(values):
            yield SeriesRecordError(
                f"{source}#docs[{doc_index}]", "period_start_day and value differ in length"
            )
            continue
        for index, (raw_start, raw_value) in enumerate(zip(starts, values, strict=True)):
            record = f"{source}#docs[{doc_index}][{index}]"
            try:
                start = _day(raw_start, record)
                value = _number(raw_value, record, DBNOMICS_MISSING)
                known = period_end(start, meta.frequency) + timedelta(days=lag_days)
                yield _row(meta, start, value, known, "lag", True, source)
            except SeriesRecordError as error:
                yield error


def csv_export(
    text: str,
    meta: SeriesMeta,
    source: str,
    date_column: str,
    value_column: str,
    known_column: str = "",
    lag_days: int = 0,
) -> Iterator[Row | SeriesRecordError]:
    reader = csv.DictReader(io.StringIO(text))
    for index, record_fields in enumerate(reader, start=2):  # line 1 is the header
        record = f"{source}:{index}"
        try:
            start = _day(record_fields.get(date_column), record)
            value = _number(record_fields.get(value_column), record, ("", ".", "NA", "NaN", "null"))
            if known_column:
                known, rule, revised = _day(record_fields.get(known_column), record), "column", False
            else:
                known, rule, revised = (
                    period_end(start, meta.frequency) + timedelta(days=lag_days),
                    "lag",
                    True,
                )
            yield _row(meta, start, value, known, rule, revised, source)
        except SeriesRecordError as error:
            yield error


def ohlc_table(text: str, meta: SeriesMeta, source: str) -> Iterator[Row | SeriesRecordError]:
    """Daily closes; each is known on its own day."""
    for row in csv_export(text, meta, source, "Date", "Close", known_column="Date"):
        yield row if isinstance(row, SeriesRecordError) else {**row, "known_date_rule": "market_close"}


def meta_from_fred(series: Mapping[str, Any], series_id: str) -> SeriesMeta:
    """Metadata from FRED's ``series`` endpoint document (``seriess[0]``), or the bare id."""
    entry = (series.get("seriess") or [{}])[0]
    return SeriesMeta(
        f"fred/{series_id}",
        "fred",
        str(entry.get("title") or series_id),
        str(entry.get("units") or ""),
        str(entry.get("frequency_short") or entry.get("frequency") or ""),
    )


def year_quarter_table(
    text: str, source: str, series: Mapping[str, SeriesMeta], lag_days: int
) -> Iterator[Row | SeriesRecordError]:
    """A wide quarterly table (``year``, ``quarter`` and one column per series, as statsmodels' macro
    data): one row per (series, quarter), dated by the lag rule since no release date is given."""
    reader = csv.DictReader(io.StringIO(text))
    for index, record_fields in enumerate(reader, start=2):
        record = f"{source}:{index}"
        try:
            year, quarter = int(str(record_fields.get("year"))), int(str(record_fields.get("quarter")))
            if not 1 <= quarter <= 4:
                raise ValueError(f"quarter {quarter}")
            start = date(year, 3 * (quarter - 1) + 1, 1)
        except ValueError as error:
            yield SeriesRecordError(record, f"not a year and quarter: {error}")
            continue
        for column, meta in series.items():
            try:
                value = _number(record_fields.get(column), record, ("", ".", "NA"))
            except SeriesRecordError as error:
                yield error
                continue
            known = period_end(start, "Q") + timedelta(days=lag_days)
            yield _row(meta, start, value, known, "lag", True, source)
