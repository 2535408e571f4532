"""The one table every series reader writes (``data/series/observations.parquet``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import pyarrow as pa

# How a row's known_date was found, strongest first:
#   vintage       the provider's real-time period (ALFRED realtime_start): the day this value was published
#   market_close  a traded price, known at the close of its own day and never revised
#   column        a known/release-date column of the user's CSV
#   lag           no release date: the period's last day plus a conservative lag (params), and the value may
#                 be a later revision (flagged revised_unknown); the series style uses them only as a fallback
KNOWN_DATE_RULES = ("vintage", "market_close", "column", "lag")

OBSERVATION_SCHEMA = pa.schema(
    [
        pa.field("series_id", pa.string(), nullable=False),  # provider-qualified, e.g. fred/CPIAUCSL
        pa.field("provider", pa.string(), nullable=False),  # fred | dbnomics | csv | ohlc
        pa.field("title", pa.string(), nullable=False),
        pa.field("unit", pa.string(), nullable=False),
        pa.field("frequency", pa.string(), nullable=False),  # D, W, M, Q, A (as the provider says)
        pa.field("period_start", pa.date32(), nullable=False),  # the period the value describes
        pa.field("period_end", pa.date32(), nullable=False),
        pa.field("value", pa.float64(), nullable=True),  # null: the provider's missing marker
        pa.field("known_date", pa.date32(), nullable=False),  # first day the value was public
        pa.field("known_date_rule", pa.string(), nullable=False),  # KNOWN_DATE_RULES
        pa.field("revised_unknown", pa.bool_(), nullable=False),  # may be a later revision of the first print
        pa.field("source_file", pa.string(), nullable=False),
    ]
)


@dataclass(frozen=True)
class SeriesMeta:
    series_id: str
    provider: str
    title: str
    unit: str
    frequency: str


def period_end(start: date, frequency: str) -> date:
    """The last day of the period starting ``start`` (D, W, M, Q, A / annual; anything else: the day)."""
    kind = frequency.strip().upper()[:1]
    if kind == "W":
        return date.fromordinal(start.toordinal() + 6)
    months = {"M": 1, "Q": 3, "A": 12, "Y": 12, "S": 6}.get(kind)
    if months is None:
        return start
    total = start.year * 12 + start.month - 1 + months
    first_after = date(total // 12, total % 12 + 1, 1)
    return date.fromordinal(first_after.toordinal() - 1)
