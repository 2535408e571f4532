"""Columns of the FutureSim corpus export: one row per chunk of an article, and the retrieval contexts."""

from __future__ import annotations

import pyarrow as pa

from almanac.core.schemas import TIMESTAMP

CHUNK_SCHEMA = pa.schema(
    [
        pa.field("chunk_id", pa.string(), nullable=False),  # content_id(article_id, ordinal, text)
        pa.field("article_id", pa.string(), nullable=False),
        pa.field("url", pa.string(), nullable=False),
        pa.field("source", pa.string(), nullable=False),  # the article's source_domain
        pa.field("publish_date", TIMESTAMP, nullable=False),
        pa.field("date_precision", pa.string(), nullable=False),  # day | upper_bound (README "Article dates")
        # The last day the article may have been published on: the date every cap is compared with.
        pa.field("available_date", pa.date32(), nullable=False),
        pa.field("ordinal", pa.int32(), nullable=False),  # position of the chunk in its article, from 0
        pa.field("token_count", pa.int32(), nullable=False),  # almanac.futuresim.tokens
        pa.field("text", pa.string(), nullable=False),
    ]
)

# Per question of a released split: its top-k chunks under its cut-off (one row per question and chunk;
# a question with no hit keeps one row with rank 0 and null chunk columns, so none goes missing).
RETRIEVAL_SCHEMA = pa.schema(
    [
        pa.field("question_id", pa.string(), nullable=False),
        pa.field("split", pa.string(), nullable=False),
        pa.field("resolution_date", pa.date32(), nullable=False),
        pa.field("resolution_date_precision", pa.string(), nullable=False),
        pa.field("cutoff_date", pa.date32(), nullable=False),  # articles available up to this day
        pa.field("query", pa.string(), nullable=False),
        pa.field("rank", pa.int16(), nullable=False),  # 1 = best; 0 = no chunk under the cut-off
        pa.field("chunk_id", pa.string()),
        pa.field("article_id", pa.string()),
        pa.field("url", pa.string()),
        pa.field("available_date", pa.date32()),
        pa.field("date_precision", pa.string()),
        pa.field("score", pa.float64()),
        pa.field("text", pa.string()),
        pa.field("retrieval_backend", pa.string(), nullable=False),
    ]
)
