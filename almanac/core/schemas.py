"""Explicit pyarrow schemas of every stage output, kept in one place.

Later stages import these instead of re-declaring columns, so that a column's type is decided once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pyarrow as pa

TIMESTAMP = pa.timestamp("s", tz="UTC")

# One news article after extraction and filtering (ccnews_ingest) and after dedup (unchanged columns).
ARTICLE_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),  # content_id(canonical url, text)
        pa.field("url", pa.string(), nullable=False),  # canonical URL
        pa.field("source_domain", pa.string(), nullable=False),
        pa.field("title", pa.string()),
        pa.field("text", pa.string(), nullable=False),
        pa.field("publish_date", TIMESTAMP, nullable=False),
        pa.field("publish_month", pa.string(), nullable=False),
        # Where publish_date came from: feed | html_meta | json_ld | url | text | crawl_date
        # (almanac.ccnews.dates.DATE_SOURCES); "day", or "upper_bound" when the crawl date stands in.
        pa.field("date_source", pa.string(), nullable=False),
        pa.field("date_precision", pa.string(), nullable=False),
        pa.field("language", pa.string()),
        pa.field("word_count", pa.int32(), nullable=False),
        pa.field("crawl_date", TIMESTAMP),
        pa.field("source_format", pa.string(), nullable=False),  # a reader kind of almanac/ccnews/readers.py
        pa.field("source_file", pa.string(), nullable=False),
        pa.field("source_offset", pa.int64(), nullable=False),  # byte offset (WARC) or line number (JSONL)
        # The codec a WARC page was decoded with (almanac.ccnews.extract.decode_page); null for JSONL.
        pa.field("charset", pa.string()),
        # The WARC payload was incomplete (the file ends inside the record, or the crawler marked it
        # WARC-Truncated) and the article comes from the part that was read.
        pa.field("truncated", pa.bool_(), nullable=False),
    ]
)

# Every item a stage drops or cannot parse: nothing disappears without a row here.
REJECT_SCHEMA = pa.schema(
    [
        pa.field("id", pa.string(), nullable=False),
        pa.field("stage", pa.string(), nullable=False),
        pa.field("reason", pa.string(), nullable=False),
        pa.field("detail", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),  # file:offset, or the upstream record id
        pa.field("related_id", pa.string()),  # e.g. the article a duplicate duplicates
    ]
)


def table_from_rows(rows: Iterable[Mapping[str, Any]], schema: pa.Schema) -> pa.Table:
    """Build a table with exactly ``schema``'s columns; unknown or missing keys are errors."""
    rows = list(rows)
    names = set(schema.names)
    for row in rows:
        extra = set(row) - names
        missing = names - set(row)
        if extra or missing:
            raise ValueError(f"row does not match schema: extra={sorted(extra)} missing={sorted(missing)}")
    columns = {name: [row[name] for row in rows] for name in schema.names}
    return pa.table(columns, schema=schema)
