"""Leakage and dedup rates of the MIRAI-style report.

MIRAI-style queries have no leakage-editing stage, so the leakage rate is reported as unknown (null), not
as zero. Dedup happens in gdelt_clean, before quads exist: repeated GlobalEventIDs and URLs reported again
on a later day, counted over the event records it read, for the report's months and for all months.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow.parquet as pq

from almanac.core.layout import gdelt_clean_rejects, gdelt_events_dir
from almanac.core.lazy import lazy_module
from almanac.reports.model import Table

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

# gdelt_clean rules that remove repeats: the same GlobalEventID twice, a URL reported again on a later day.
DEDUP_REASONS = ("duplicate_event_id", "not_earliest_url_date")
RULE_PARAMS = {
    "duplicate_event_id": "drop_duplicate_event_ids",
    "not_earliest_url_date": "earliest_date_per_url",
}
CLEAN_REJECTS = gdelt_clean_rejects()
EVENTS_DIR = gdelt_events_dir()


def dedup_counts(
    months: Sequence[str], rejects: Path = CLEAN_REJECTS, events_dir: Path = EVENTS_DIR
) -> dict[str, Any] | None:
    """gdelt_clean's repeat rejects over the event rows ingested for ``months``, or None when unknown.

    A reject's month is that of the export file it came from (its source starts with the file's
    YYYYMM... timestamp), the same file the month's events Parquet was ingested from.
    """
    events = [events_dir / f"{month}.parquet" for month in months]
    if not rejects.is_file() or not all(path.is_file() for path in events):
        return None
    events_in = sum(pq.read_metadata(path).num_rows for path in events)
    reasons = ", ".join(f"'{reason}'" for reason in DEDUP_REASONS)
    found = dict(
        duckdb.connect()
        .execute(
            f"""SELECT reason, count(*) FROM read_parquet(?)
                WHERE reason IN ({reasons}) AND regexp_matches(source, '^[0-9]{{6}}')
                  AND substr(source, 1, 4) || '-' || substr(source, 5, 2) IN (SELECT unnest(?::VARCHAR[]))
                GROUP BY reason""",
            [str(rejects), list(months)],
        )
        .fetchall()
    )
    return {"events_in": events_in, **{reason: int(found.get(reason, 0)) for reason in DEDUP_REASONS}}


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 4) if whole else None


def _dedup_metrics(events_in: int, repeats: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {"events_in": events_in}
    for reason in DEDUP_REASONS:
        result[reason] = repeats.get(reason, 0)
        result[f"{reason}_rate"] = _rate(repeats.get(reason, 0), events_in)
    return result


def leakage_and_dedup(
    months: Sequence[str],
    params: Mapping[str, Any],
    funnel: list[dict[str, Any]],
    metrics: dict[str, Any],
    tables: list[Table],
) -> list[str]:
    """Adds the ``leakage`` and ``dedup`` metrics and their table; returns notes for the report."""
    clean = next(row for row in funnel if row["stage"] == "gdelt_clean")
    whole = _dedup_metrics(clean["items_in"], clean["rejected_by_reason"])
    counted = dedup_counts(months)
    scoped = _dedup_metrics(counted.pop("events_in"), counted) if counted is not None else None
    metrics["leakage"] = {"flagged": None, "rate": None}
    metrics["dedup"] = {"scope_months": scoped, "all_months": whole}
    rows: list[tuple[Any, ...]] = [("leakage flag", "-", "n/a", "n/a", "n/a")]
    for label, values in ((", ".join(months), scoped), ("all months", whole)):
        for reason in DEDUP_REASONS:
            if values is not None:
                rows.append(
                    (reason, label, values[reason], values["events_in"], _percent(values[f"{reason}_rate"]))
                )
    rows.append(
        ("repeated query_id", ", ".join(months), metrics["repeated_query_ids"], metrics["queries"], "-")
    )
    tables.append(
        Table(
            "Leakage and dedup",
            ("Check", "Scope", "Flagged", "Of", "Rate"),
            tuple(rows),
            "Dedup: gdelt_clean's duplicate GlobalEventIDs and URLs seen again on a later day, over event "
            "records in; no leakage flag exists for this style.",
        )
    )
    rules = params.get("gdelt_clean", {})
    notes = [
        f"gdelt_clean.{name} is off, so no {reason} rejects could be counted."
        for reason, name in RULE_PARAMS.items()
        if rules.get(name) is False
    ]
    if scoped is None:
        notes.append(
            f"No dedup rate for {', '.join(months)}: {CLEAN_REJECTS} or the month's events are missing."
        )
    return notes


def _percent(rate: float | None) -> str:
    return "-" if rate is None else f"{rate:.2%}"
