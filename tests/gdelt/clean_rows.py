"""Hand-built GDELT export rows and a runner of the cleaning rules, shared by the gdelt_clean tests."""

from __future__ import annotations

import dataclasses
from datetime import UTC, date, datetime
from typing import Any

from almanac.core.rejects import TableLedger
from almanac.core.schemas import table_from_rows
from almanac.gdelt.clean import (
    CLEAN_EVENT_SCHEMA,
    QUAD_SCHEMA,
    CleanResult,
    GdeltCleanConfig,
    clean_events,
)
from almanac.gdelt.schema import EXPORT_SCHEMA

MAY_1 = date(2025, 5, 1)
NOON_MAY_1 = datetime(2025, 5, 1, 12, 0, tzinfo=UTC)
DEFAULT = GdeltCleanConfig()
ALL_OFF = GdeltCleanConfig(
    drop_duplicate_event_ids=False,
    reported_today=False,
    earliest_date_per_url=False,
    require_countries=False,
    drop_same_country=False,
    drop_unknown_root=False,
    mention_threshold=0,
)


def export_row(event_id: int, **overrides: Any) -> dict[str, Any]:
    """An export row USA -> CHN, "042" on 2025-05-01, 60 mentions, with its own URL and source line."""
    row: dict[str, Any] = dict.fromkeys(EXPORT_SCHEMA.names)
    row.update(
        GlobalEventID=event_id,
        Day=MAY_1,
        MonthYear=202505,
        Year=2025,
        DATEADDED=NOON_MAY_1,
        Actor1CountryCode="USA",
        Actor2CountryCode="CHN",
        EventCode="0421",
        EventBaseCode="042",
        EventRootCode="04",
        QuadClass=1,
        NumMentions=60,
        NumSources=3,
        NumArticles=6,
        GoldsteinScale=1.9,
        AvgTone=-0.5,
        SOURCEURL=f"https://news.example/story-{event_id}",
        gdelt_version="2.0",
        source=f"20250501120000.export.CSV:{event_id}",
    )
    row.update(overrides)
    return row


def run(rows: list[dict[str, Any]], config: GdeltCleanConfig = DEFAULT) -> tuple[CleanResult, TableLedger]:
    ledger = TableLedger("gdelt_clean")
    result = clean_events(table_from_rows(rows, EXPORT_SCHEMA), config, ledger)
    assert result.events.schema == CLEAN_EVENT_SCHEMA
    assert result.quads.schema == QUAD_SCHEMA
    ledger.check_balance()
    assert ledger.items_in == len(rows)
    return result, ledger


def kept_ids(result: CleanResult) -> list[int]:
    ids: list[int] = result.events.column("global_event_id").to_pylist()
    return ids


def only(config_field: str, **extra: Any) -> GdeltCleanConfig:
    """Every rule off except one (and the threshold at 0), to see that rule alone."""
    changes: dict[str, Any] = {config_field: True, **extra}
    return dataclasses.replace(ALL_OFF, **changes)
