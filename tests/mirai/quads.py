"""Hand-built quads.parquet rows in the contract's QUAD_SCHEMA, and a small country -> region table."""

from __future__ import annotations

from datetime import date
from typing import Any

import pyarrow as pa

from almanac.core.ids import content_id

# The contract's QUAD_SCHEMA (written by gdelt_clean); relation_split must read files of exactly this shape.
QUAD_SCHEMA = pa.schema(
    [
        pa.field("quad_id", pa.string()),
        pa.field("date", pa.date32()),
        pa.field("subject", pa.string()),
        pa.field("relation", pa.string()),
        pa.field("relation_root", pa.string()),
        pa.field("object", pa.string()),
        pa.field("quad_class", pa.int8()),
        pa.field("num_daily_mentions", pa.int64()),
        pa.field("n_events", pa.int32()),
        pa.field("n_urls", pa.int32()),
        pa.field("urls", pa.list_(pa.string())),
    ]
)

REGIONS = {
    "USA": "Northern America",
    "CAN": "Northern America",
    "CHN": "Eastern Asia",
    "JPN": "Eastern Asia",
    "FRA": "Western Europe",
    "DEU": "Western Europe",
    "RUS": "Eastern Europe",
    "UKR": "Eastern Europe",
    "EGY": "Northern Africa",
    "NGA": "Western Africa",
    "BRA": "South America",
    "AUS": "Australia and New Zealand",
}


def quad(
    day: str, subject: str, relation: str, obj: str, mentions: int, urls: list[str], **override: Any
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "quad_id": content_id(day, subject, relation, obj),
        "date": date.fromisoformat(day),
        "subject": subject,
        "relation": relation,
        "relation_root": relation[:2],
        "object": obj,
        "quad_class": 1,
        "num_daily_mentions": mentions,
        "n_events": 1,
        "n_urls": len(set(urls)),
        "urls": sorted(set(urls)),
    }
    row.update(override)
    return row


def urls(prefix: str, count: int) -> list[str]:
    return [f"https://news.example/{prefix}/{i}" for i in range(count)]


def table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(rows, schema=QUAD_SCHEMA)


def every_url(rows: list[dict[str, Any]]) -> frozenset[str]:
    """All source URLs of ``rows``: the texts set of a corpus where every article's text survived cleaning."""
    return frozenset(url for row in rows for url in row["urls"])
