"""Stage ``series_ingest``: every series file a manifest lists -> one observations table and its rejects.

The manifest (``<inputs_dir>/manifest.json``) says what each file is, since a CSV or JSON file does not
say which provider shape it has or what its columns measure::

    {"files": [
      {"path": "macrodata.csv", "reader": "year_quarter",
       "columns": {"cpi": {"series_id": "macrodata/cpi", "title": "...", "unit": "...", "frequency": "Q"}}},
      {"path": "fred/CPIAUCSL.observations.json", "reader": "fred", "series_id": "CPIAUCSL",
       "series_path": "fred/CPIAUCSL.series.json"},
      {"path": "dbnomics/ECB_EXR.json", "reader": "dbnomics"},
      {"path": "unrate.csv", "reader": "csv", "date_column": "DATE", "value_column": "UNRATE",
       "known_column": "", "meta": {...}},
      {"path": "index.csv", "reader": "ohlc", "meta": {...}}]}

Items are the records the readers see, plus one per file that cannot be read at all. A record that
cannot be read is its own reject (``unreadable_record``); a file that is missing, too large or not what
its reader expects is one reject (``unreadable_file``); a second row for the same (series, period,
known date) is a reject (``duplicate_observation``): which one a forecaster saw that day is unknown.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id
from almanac.core.rejects import StageLedger
from almanac.series import readers
from almanac.series.readers import SeriesRecordError
from almanac.series.schema import OBSERVATION_SCHEMA, SeriesMeta

STAGE = "series_ingest"
MANIFEST = "manifest.json"
READERS = ("year_quarter", "fred", "dbnomics", "csv", "ohlc")
Row = dict[str, Any]


@dataclass(frozen=True)
class SeriesIngestConfig:
    """params ``series.ingest``."""

    inputs_dir: str = "data/raw/sample/series"  # holds manifest.json and the files it names
    lag_days: int = 45  # no release date: known this many days after the period ends (flagged)
    max_file_bytes: int = 50_000_000  # a bigger file is one reject, never read

    def __post_init__(self) -> None:
        if self.lag_days < 0:
            raise ValueError("series.ingest.lag_days must be >= 0")


class ManifestError(ValueError):
    """The manifest itself is missing or malformed: a configuration error, not a record's."""


def read_manifest(inputs_dir: Path) -> list[Mapping[str, Any]]:
    path = inputs_dir / MANIFEST
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        raise ManifestError(f"cannot read the series manifest {path}: {error}") from None
    files = document.get("files") if isinstance(document, dict) else None
    if not isinstance(files, list) or not all(isinstance(entry, dict) for entry in files):
        raise ManifestError(f"{path}: expected {{'files': [{{...}}, ...]}}")
    for index, entry in enumerate(files):
        if entry.get("reader") not in READERS or not entry.get("path"):
            raise ManifestError(f"{path}: files[{index}] needs a path and a reader of {READERS}")
    return files


def _meta(raw: Mapping[str, Any], provider: str) -> SeriesMeta:
    return SeriesMeta(
        str(raw["series_id"]),
        provider,
        str(raw.get("title") or raw["series_id"]),
        str(raw.get("unit") or ""),
        str(raw.get("frequency") or ""),
    )


def _read(path: Path, limit: int) -> bytes:
    size = path.stat().st_size
    if size > limit:
        raise ValueError(f"{size} bytes, over series.ingest.max_file_bytes {limit}")
    return path.read_bytes()


def read_entry(
    entry: Mapping[str, Any], inputs_dir: Path, config: SeriesIngestConfig
) -> Iterator[Row | SeriesRecordError]:
    """The rows (and record errors) of one manifest entry; OSError/ValueError/KeyError: the whole file."""
    name = str(entry["path"])
    payload = _read(inputs_dir / name, config.max_file_bytes)
    reader = entry["reader"]
    if reader == "year_quarter":
        columns = {column: _meta(meta, "csv") for column, meta in dict(entry["columns"]).items()}
        yield from readers.year_quarter_table(payload.decode("utf-8"), name, columns, config.lag_days)
    elif reader == "fred":
        series_path = entry.get("series_path")
        document = (
            json.loads(_read(inputs_dir / str(series_path), config.max_file_bytes)) if series_path else {}
        )
        meta = readers.meta_from_fred(document, str(entry["series_id"]))
        yield from readers.fred_observations(payload, meta, name)
    elif reader == "dbnomics":
        yield from readers.dbnomics_series(payload, name, config.lag_days)
    elif reader == "csv":
        yield from readers.csv_export(
            payload.decode("utf-8"),
            _meta(entry["meta"], "csv"),
            name,
            str(entry["date_column"]),
            str(entry["value_column"]),
            str(entry.get("known_column") or ""),
            config.lag_days,
        )
    else:
        yield from readers.ohlc_table(payload.decode("utf-8"), _meta(entry["meta"], "ohlc"), name)


def ingest(inputs_dir: Path, config: SeriesIngestConfig) -> tuple[pa.Table, StageLedger]:
    """Every manifest file read; the observations sorted by series, period and known date."""
    ledger = StageLedger(STAGE)
    kept: dict[tuple[str, Any, Any], Row] = {}
    for entry in read_manifest(inputs_dir):
        name = str(entry["path"])
        try:
            items = list(read_entry(entry, inputs_dir, config))
        except (OSError, ValueError, KeyError, TypeError, UnicodeDecodeError) as error:
            ledger.items_in += 1
            reason = f"{type(error).__name__}: {error}"[:300]
            ledger.reject(content_id(STAGE, name), "unreadable_file", reason, name)
            continue
        for item in items:
            ledger.items_in += 1
            if isinstance(item, SeriesRecordError):
                ledger.reject(content_id(STAGE, item.record), "unreadable_record", item.reason, name)
                continue
            key = (str(item["series_id"]), item["period_start"], item["known_date"])
            if key in kept:
                record = f"{key[0]} {key[1]} known {key[2]}"
                detail = f"a second row for {record}"
                ledger.reject(content_id(STAGE, name, record), "duplicate_observation", detail, name)
                continue
            kept[key] = item
    rows = [kept[key] for key in sorted(kept, key=lambda k: (k[0], k[1], k[2]))]
    ledger.items_out = len(rows)
    ledger.extra["series"] = len({row["series_id"] for row in rows})
    ledger.extra["rows_by_known_date_rule"] = dict(
        sorted(_tally(str(row["known_date_rule"]) for row in rows).items())
    )
    return pa.Table.from_pylist(rows, schema=OBSERVATION_SCHEMA), ledger


def _tally(values: Iterator[str] | Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for value in values:
        counts[value] = counts.get(value, 0) + 1
    return counts
