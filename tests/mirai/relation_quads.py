"""Hand-built quads and the split runner shared by the relation_split tests."""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from almanac.core.rejects import StageLedger
from almanac.mirai.recipe import PAPER
from almanac.mirai.relation_split import (
    RelationSplitConfig,
    build_month,
)
from tests.mirai.quads import REGIONS, every_url, quad, table, urls

# thresholds small enough to write groups by hand
CONFIG = RelationSplitConfig(min_daily_mentions=100, min_articles=5, queries_per_month=100, seed=7)


def _strong(day: str, subject: str = "USA", obj: str = "CHN", relation: str = "042") -> dict[str, Any]:
    """One event that passes both recipes: 120 >= 100 mentions, 5 >= 5 URLs (all with text)."""
    return quad(day, subject, relation, obj, 120, urls(f"{day}{subject}{obj}", 5))


def _build(
    rows: list[dict[str, Any]], month: str = "2025-05", config: RelationSplitConfig = CONFIG
) -> tuple[pa.Table, StageLedger]:
    """The paper recipe with every URL's text surviving."""
    return build_month(table(rows), month, config, REGIONS, recipe=PAPER, texts=every_url(rows))
