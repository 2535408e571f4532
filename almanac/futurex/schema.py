"""Arrow schemas of the FutureX branch: candidate events (events, filter) and tier questions (tiers)."""

from __future__ import annotations

from typing import Any, Final

import pyarrow as pa

ORIGINS: Final = ("openforesight", "mirai", "numeric")
LEVELS: Final = (1, 2, 3, 4)
TIER_NAMES: Final = {1: "basic", 2: "wide_search", 3: "deep_search", 4: "super_agent"}

_EVENT_FIELDS = [
    pa.field("event_id", pa.string(), nullable=False),  # content hash of (origin, source_id)
    pa.field("origin", pa.string(), nullable=False),  # openforesight | mirai | numeric
    pa.field("source_id", pa.string(), nullable=False),  # the question or query it was made from
    pa.field("question", pa.string(), nullable=False),
    pa.field("background", pa.string(), nullable=False),
    pa.field("answers", pa.list_(pa.string()), nullable=False),
    pa.field("answer_type", pa.string(), nullable=False),
    pa.field("answer_class", pa.string()),
    pa.field("value", pa.float64()),  # numeric events: the outcome in `unit`
    pa.field("unit", pa.string()),
    # The last day whose information a forecaster may use, and the day the outcome was known.
    pa.field("information_cutoff", pa.date32(), nullable=False),
    pa.field("resolution_date", pa.date32(), nullable=False),
    pa.field("news_source", pa.string(), nullable=False),  # the outlet (the per-source-day cap's source)
    pa.field("source_day", pa.date32(), nullable=False),  # the outlet's day (the cap's day)
    pa.field("resolution_source", pa.string(), nullable=False),  # where the answer is read (URL)
    # check.cross_style.action mark: why the row repeats another style's training row (null: it does not)
    pa.field("cross_style_duplicate", pa.string()),
]
EVENT_SCHEMA: Final = pa.schema(_EVENT_FIELDS)

# A Level-1 distractor: the generated, unreleased OpenForesight candidate (foresight_qgen) it is the
# answer of, and the day that name was public (its article's day; the field keeps its old name).
DISTRACTOR_SOURCE = pa.struct(
    [
        pa.field("question_id", pa.string()),
        pa.field("answer", pa.string()),
        pa.field("resolution_date", pa.date32()),
    ]
)

TIER_SCHEMA: Final = pa.schema(
    [
        pa.field("question_id", pa.string(), nullable=False),  # content hash of (level, event_id)
        pa.field("level", pa.int8(), nullable=False),
        pa.field("tier", pa.string(), nullable=False),  # basic | wide_search | deep_search | super_agent
        *_EVENT_FIELDS,
        pa.field("options", pa.list_(pa.string()), nullable=False),  # empty for open-ended levels
        pa.field("aliases", pa.list_(pa.string()), nullable=False),  # other accepted forms (Level 3)
        pa.field("volatility", pa.string()),  # low (Level 3) | high (Level 4)
        pa.field("sigma", pa.float64()),  # Level 4: the scale of the clipped squared error
        pa.field("sigma_source", pa.string()),
        pa.field("distractor_sources", pa.list_(DISTRACTOR_SOURCE), nullable=False),
    ]
)


def events_table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(sorted(rows, key=lambda row: row["event_id"]), schema=EVENT_SCHEMA)


def tier_table(rows: list[dict[str, Any]]) -> pa.Table:
    return pa.Table.from_pylist(sorted(rows, key=lambda row: row["question_id"]), schema=TIER_SCHEMA)
