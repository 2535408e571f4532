"""Series readers: every value dated by when it became known; bad records are that record's error.

Fixtures are small files in each provider's response shape (tests/fixtures/series/); expected rows are
read off them by hand.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pyarrow as pa

from almanac.core.schemas import table_from_rows
from almanac.series.readers import (
    SeriesRecordError,
    csv_export,
    dbnomics_series,
    fred_observations,
    meta_from_fred,
    ohlc_table,
    year_quarter_table,
)
from almanac.series.schema import OBSERVATION_SCHEMA, SeriesMeta, period_end

FIXTURES = Path(__file__).parents[1] / "fixtures" / "series"


def split(items: list[object]) -> tuple[list[dict[str, object]], list[SeriesRecordError]]:
    rows = [item for item in items if isinstance(item, dict)]
    errors = [item for item in items if isinstance(item, SeriesRecordError)]
    return rows, errors


def test_period_ends() -> None:
    assert period_end(date(2025, 2, 1), "M") == date(2025, 2, 28)
    assert period_end(date(2024, 10, 1), "Q") == date(2024, 12, 31)
    assert period_end(date(2025, 1, 1), "annual") == date(2025, 12, 31)
    assert period_end(date(2025, 6, 2), "W") == date(2025, 6, 8)
    assert period_end(date(2025, 6, 2), "D") == date(2025, 6, 2)


def test_alfred_vintages_are_rows_known_on_their_publication_day() -> None:
    meta = meta_from_fred(json.loads((FIXTURES / "fred_CPIAUCSL.series.json").read_bytes()), "CPIAUCSL")
    assert (meta.series_id, meta.unit, meta.frequency) == ("fred/CPIAUCSL", "Index 1982-1984=100", "M")
    payload = (FIXTURES / "fred_CPIAUCSL.observations.json").read_bytes()
    rows, errors = split(list(fred_observations(payload, meta, "fred_CPIAUCSL.observations.json")))
    # March 2025: first printed 319.799 on April 10, revised to 319.615 on May 13: two rows
    march = [(row["value"], row["known_date"]) for row in rows if row["period_start"] == date(2025, 3, 1)]
    assert march == [(319.799, date(2025, 4, 10)), (319.615, date(2025, 5, 13))]
    assert [row["value"] for row in rows if row["period_start"] == date(2025, 5, 1)] == [None]  # FRED's "."
    assert {row["known_date_rule"] for row in rows} == {"vintage"} and not any(
        r["revised_unknown"] for r in rows
    )
    assert len(errors) == 1 and "not a date" in errors[0].reason and errors[0].record.endswith("[4]")
    table = table_from_rows(rows, OBSERVATION_SCHEMA)
    assert table.num_rows == 4 and table.schema.field("period_end").type == pa.date32()


def test_dbnomics_values_wait_for_the_period_end_plus_the_lag_and_are_flagged() -> None:
    rows, errors = split(
        list(dbnomics_series((FIXTURES / "dbnomics_ECB_EXR.json").read_bytes(), "exr.json", 5))
    )
    assert not errors
    assert rows[0]["series_id"] == "dbnomics/ECB/EXR/M.USD.EUR.SP00.A" and rows[0]["unit"] == "USD per EUR"
    assert [(r["value"], r["known_date"]) for r in rows] == [
        (1.0807, date(2025, 4, 5)),  # March ends the 31st, + 5 days
        (None, date(2025, 5, 5)),  # "NA"
        (1.1278, date(2025, 6, 5)),
    ]
    assert all(r["known_date_rule"] == "lag" and r["revised_unknown"] for r in rows)


def test_a_csv_export_with_release_dates_and_one_without() -> None:
    meta = SeriesMeta("csv/UNRATE", "csv", "Unemployment rate", "percent", "M")
    text = (FIXTURES / "unrate.csv").read_text()
    rows, errors = split(
        list(csv_export(text, meta, "unrate.csv", "observation_date", "UNRATE", "release_date"))
    )
    assert [(r["value"], r["known_date"], r["known_date_rule"]) for r in rows] == [
        (4.2, date(2025, 4, 4), "column"),
        (4.2, date(2025, 5, 2), "column"),
        (None, date(2025, 6, 6), "column"),
    ]
    assert [e.record for e in errors] == ["unrate.csv:5"] and "not a number" in errors[0].reason
    lagged, _ = split(list(csv_export(text, meta, "unrate.csv", "observation_date", "UNRATE", lag_days=10)))
    assert lagged[0]["known_date"] == date(2025, 4, 10) and lagged[0]["revised_unknown"]


def test_ohlc_closes_are_known_at_their_own_close_and_adjusted_closes_are_not_used() -> None:
    meta = SeriesMeta("ohlc/INDEX", "ohlc", "An index", "points", "D")
    rows, errors = split(list(ohlc_table((FIXTURES / "ohlc_index.csv").read_text(), meta, "ohlc_index.csv")))
    assert [(r["period_start"], r["value"], r["known_date"]) for r in rows] == [
        (date(2025, 6, 2), 5935.94, date(2025, 6, 2)),
        (date(2025, 6, 3), 5970.37, date(2025, 6, 3)),
    ]
    assert {r["known_date_rule"] for r in rows} == {"market_close"} and len(errors) == 1


def test_the_bundled_macro_table_gives_one_series_per_column() -> None:
    path = Path(__file__).parents[2] / "data" / "raw" / "sample" / "series" / "macrodata.csv"
    series = {
        "cpi": SeriesMeta(
            "statsmodels/macrodata/cpi", "csv", "US CPI, end of quarter", "index 1982-84=100", "Q"
        ),
        "unemp": SeriesMeta("statsmodels/macrodata/unemp", "csv", "US unemployment rate", "percent", "Q"),
    }
    rows, errors = split(list(year_quarter_table(path.read_text(), "macrodata.csv", series, 30)))
    assert not errors and len(rows) == 2 * 203  # 1959Q1..2009Q3
    first_cpi = next(r for r in rows if str(r["series_id"]).endswith("cpi"))
    # 1959 Q1: 28.98, quarter ends March 31, known 30 days later; the value may be a revision
    assert (first_cpi["period_start"], first_cpi["value"], first_cpi["known_date"]) == (
        date(1959, 1, 1),
        28.98,
        date(1959, 4, 30),
    )
    assert first_cpi["revised_unknown"] and first_cpi["period_end"] == date(1959, 3, 31)
    bad, problems = split(list(year_quarter_table("year,quarter,cpi\n2009,5,1.0\n", "x.csv", series, 0)))
    assert not bad and "not a year and quarter" in problems[0].reason
