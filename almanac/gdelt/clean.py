"""gdelt_clean: MIRAI's rules over GDELT export rows, then daily (date, subject, relation, object) quads.

The rules run in this order, each on the rows every earlier rule kept (all but the two sanity checks
can be switched off in ``params.yaml``; a rule switched off keeps every row it would have dropped):

1. *sanity*: SOURCEURL present and canonicalisable (``missing_source_url``, ``bad_source_url``): an
   event without a source cannot be grouped by URL nor linked to an article.
2. ``drop_duplicate_event_ids``: of the rows sharing a GlobalEventID keep the first by DATEADDED, then
   by ``source`` (file:line) (``duplicate_event_id``; related_id = the kept row's source).
3. ``reported_today``: keep rows whose Day is the UTC date of DATEADDED: the article reports the event
   as happening "today", so its date is not a guess at "last month" (``not_reported_today``).
4. ``earliest_date_per_url``: per canonical SOURCEURL keep only the rows of its earliest Day; a page
   re-crawled on later days yields the same events again (``not_earliest_url_date``).
5. ``require_countries``: both actor country codes present (``missing_country``) and mapped to ISO 3166
   alpha-3 by :mod:`almanac.gdelt.countries` (``unknown_country_code``, the detail names the code).
6. ``drop_same_country``: subject and object the same country: domestic, not international
   (``same_country``).
7. ``drop_unknown_root``: EventRootCode "--" or empty (``unknown_root_code``).
8. *sanity*: EventBaseCode present, since it is the relation (``missing_event_code``).
9. Quads: relation = EventBaseCode (CAMEO's second level); the kept events are grouped by (Day,
   subject, relation, object) and num_daily_mentions = the sum of their NumMentions. A quad is kept
   when ``num_daily_mentions <mention_comparison> mention_threshold``. MIRAI's paper keeps events
   with "at least 50" daily mentions (``>=``) while its released code tests ``> 50``; the comparison
   is a param so either can be reproduced. The events of a dropped quad are rejects
   (``below_mention_threshold``, related_id = quad_id), so the event funnel adds up.

Everything row-wise runs in DuckDB: a month of exports has millions of rows. Python touches only
distinct URLs (to use the one shared :func:`canonical_url`) and quads (for :func:`content_id`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pyarrow as pa

from almanac.core.ids import canonical_url, content_id
from almanac.core.lazy import lazy_module
from almanac.core.rejects import TableLedger
from almanac.core.schemas import TIMESTAMP
from almanac.core.step import table_step
from almanac.gdelt import clean_sql as sql
from almanac.gdelt.countries import CAMEO_NOT_COUNTRIES, CAMEO_TO_ISO3

if TYPE_CHECKING:
    import duckdb
else:
    duckdb = lazy_module("duckdb")

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # ~0.1 s at import (it builds every compute function's wrapper): paid where used
    pc = lazy_module("pyarrow.compute")

STAGE: Final = "gdelt_clean"

CLEAN_EVENT_SCHEMA = pa.schema(
    [
        pa.field("global_event_id", pa.int64(), nullable=False),
        pa.field("date", pa.date32(), nullable=False),  # GDELT's Day
        pa.field("date_added", TIMESTAMP, nullable=False),
        # ISO 3166 alpha-3 (the raw CAMEO code, or null, only when require_countries is off)
        pa.field("subject", pa.string()),
        pa.field("object", pa.string()),
        pa.field("subject_cameo", pa.string()),  # the export's Actor1CountryCode
        pa.field("object_cameo", pa.string()),  # Actor2CountryCode
        pa.field("event_code", pa.string()),
        pa.field("relation", pa.string(), nullable=False),  # EventBaseCode: CAMEO second level, 3 digits
        pa.field("relation_root", pa.string()),  # EventRootCode: 2 digits
        pa.field("quad_class", pa.int8()),
        pa.field("num_mentions", pa.int32()),
        pa.field("num_sources", pa.int32()),
        pa.field("num_articles", pa.int32()),
        pa.field("goldstein", pa.float64()),
        pa.field("avg_tone", pa.float64()),
        pa.field("source_url", pa.string(), nullable=False),  # SOURCEURL as given
        pa.field("url", pa.string(), nullable=False),  # canonical_url(source_url)
    ]
)

QUAD_SCHEMA = pa.schema(
    [
        pa.field("quad_id", pa.string(), nullable=False),  # content_id(date ISO, subject, relation, object)
        pa.field("date", pa.date32(), nullable=False),
        pa.field("subject", pa.string()),
        pa.field("relation", pa.string(), nullable=False),
        pa.field("relation_root", pa.string()),
        pa.field("object", pa.string()),
        pa.field("quad_class", pa.int8()),
        pa.field("num_daily_mentions", pa.int64(), nullable=False),
        pa.field("n_events", pa.int32(), nullable=False),
        pa.field("n_urls", pa.int32(), nullable=False),
        pa.field("urls", pa.list_(pa.string()), nullable=False),  # distinct canonical URLs, sorted
    ]
)

MENTION_COMPARISONS: Final = (">=", ">")

# Columns of EXPORT_SCHEMA this stage reads.
_EXPORT_COLUMNS: Final = (
    "GlobalEventID",
    "Day",
    "DATEADDED",
    "source",
    "Actor1CountryCode",
    "Actor2CountryCode",
    "EventCode",
    "EventBaseCode",
    "EventRootCode",
    "QuadClass",
    "NumMentions",
    "NumSources",
    "NumArticles",
    "GoldsteinScale",
    "AvgTone",
    "SOURCEURL",
)


@dataclass(frozen=True)
class GdeltCleanConfig:
    drop_duplicate_event_ids: bool = True
    reported_today: bool = True
    earliest_date_per_url: bool = True
    require_countries: bool = True
    drop_same_country: bool = True
    drop_unknown_root: bool = True
    mention_threshold: int = 50
    mention_comparison: str = ">="  # ">=" (MIRAI's paper: "at least 50") or ">" (MIRAI's code: "> 50")

    def __post_init__(self) -> None:
        if self.mention_comparison not in MENTION_COMPARISONS:
            raise ValueError(
                f"gdelt_clean.mention_comparison must be one of {MENTION_COMPARISONS},"
                f" got {self.mention_comparison!r}"
            )
        if isinstance(self.mention_threshold, bool) or not isinstance(self.mention_threshold, int):
            raise ValueError(
                f"gdelt_clean.mention_threshold must be an integer, got {self.mention_threshold!r}"
            )
        if self.mention_threshold < 0:
            raise ValueError(f"gdelt_clean.mention_threshold must be >= 0, got {self.mention_threshold}")


@dataclass(frozen=True)
class Rule:
    name: str  # the params switch, or "sanity:..." for the checks that cannot be switched off
    enabled: bool
    reasons: tuple[str, ...]


@dataclass
class CleanResult:
    events: pa.Table  # CLEAN_EVENT_SCHEMA
    quads: pa.Table  # QUAD_SCHEMA
    funnel: list[dict[str, Any]] = field(default_factory=list)  # per rule: rejected, remaining
    quad_counts: dict[str, int] = field(default_factory=dict)


def rules(config: GdeltCleanConfig) -> list[Rule]:
    return [
        Rule("sanity:source_url", True, ("missing_source_url", "bad_source_url")),
        Rule("drop_duplicate_event_ids", config.drop_duplicate_event_ids, ("duplicate_event_id",)),
        Rule("reported_today", config.reported_today, ("not_reported_today",)),
        Rule("earliest_date_per_url", config.earliest_date_per_url, ("not_earliest_url_date",)),
        Rule("require_countries", config.require_countries, ("missing_country", "unknown_country_code")),
        Rule("drop_same_country", config.drop_same_country, ("same_country",)),
        Rule("drop_unknown_root", config.drop_unknown_root, ("unknown_root_code",)),
        Rule("sanity:event_code", True, ("missing_event_code",)),
        Rule("mention_threshold", True, ("below_mention_threshold",)),
    ]


def clean_events(
    export: pa.Table | Sequence[Path], config: GdeltCleanConfig, ledger: TableLedger
) -> CleanResult:
    """Apply the rules to EXPORT_SCHEMA rows (a table, or Parquet files read by DuckDB directly).

    Every input row is one ledger item: kept in the events output, or one reject row with its
    GlobalEventID as id, its ``source`` (file:line) as source and the first rule that dropped it.
    """
    con = duckdb.connect()
    try:
        con.execute("SET TimeZone = 'UTC'")  # DATEADDED's date is its UTC date, whatever the machine's zone
        _load(con, export)
        _apply_rules(con, config)
        quads, quads_below = _quads(con, config)
        events = _kept_events(con)
        rejected = _arrow(con, sql.REJECTED.format(stage=STAGE))
        counts = dict(con.execute(sql.REASON_COUNTS).fetchall())
    finally:
        con.close()
    items_in = sum(counts.values())
    table_step(ledger, events.num_rows, rejected)
    result = CleanResult(events, quads, _funnel(config, counts, items_in))
    below = counts.get("below_mention_threshold", 0)
    result.quad_counts = {
        "quads_kept": quads.num_rows,
        "quads_below_threshold": quads_below,
        "events_below_threshold": below,
    }
    return result


def _load(con: duckdb.DuckDBPyConnection, export: pa.Table | Sequence[Path]) -> None:
    if isinstance(export, pa.Table):
        con.register("export_rows", export.select(list(_EXPORT_COLUMNS)))
    elif export:
        con.read_parquet([str(path) for path in export]).select(*_EXPORT_COLUMNS).create_view("export_rows")
    else:
        raise ValueError("gdelt_clean: no export files to read")
    urls = [row[0] for row in con.execute("SELECT DISTINCT SOURCEURL FROM export_rows").fetchall()]
    con.register("url_map", _url_map(urls))
    con.register("cameo_map", pa.table({"code": list(CAMEO_TO_ISO3), "iso3": list(CAMEO_TO_ISO3.values())}))
    why = {"code": list(CAMEO_NOT_COUNTRIES), "why": list(CAMEO_NOT_COUNTRIES.values())}
    con.register("not_countries", pa.table(why))
    con.execute(sql.WORK_TABLE)


def _url_map(urls: list[str | None]) -> pa.Table:
    """Canonical URL of each distinct SOURCEURL, or why there is none (blank, or not parseable)."""
    canonical: list[str | None] = []
    errors: list[str | None] = []
    for url in urls:
        if url is None or not url.strip():
            canonical.append(None)
            errors.append(None)
            continue
        try:
            canonical.append(canonical_url(url))
            errors.append(None)
        except ValueError as error:  # e.g. a non-numeric port or a broken IPv6 host
            canonical.append(None)
            errors.append(str(error))
    return pa.table(
        {"source_url": pa.array(urls, pa.string()), "url": canonical, "error": pa.array(errors, pa.string())}
    )


def _apply_rules(con: duckdb.DuckDBPyConnection, config: GdeltCleanConfig) -> None:
    for switch, statement in sql.RULES:
        if switch is None or getattr(config, switch):
            con.execute(statement)


def _quads(con: duckdb.DuckDBPyConnection, config: GdeltCleanConfig) -> tuple[pa.Table, int]:
    """Group kept events into quads; reject the events of quads below the threshold.

    Returns the passing quads (QUAD_SCHEMA, sorted by date, subject, relation, object) and how many
    quads failed.
    """
    quads = _arrow(con, sql.QUADS)
    ids = [
        content_id(day.isoformat(), subject or "", relation, obj or "")
        for day, subject, relation, obj in zip(
            quads.column("date").to_pylist(),
            quads.column("subject").to_pylist(),
            quads.column("relation").to_pylist(),
            quads.column("object").to_pylist(),
            strict=True,
        )
    ]
    quads = quads.add_column(0, "quad_id", pa.array(ids, pa.string()))
    passing = _passing(quads.column("num_daily_mentions"), config)
    failing = quads.filter(pc.invert(passing)).select(
        ["quad_id", "date", "subject", "relation", "object", "num_daily_mentions"]
    )
    con.register("failing_quads", failing)
    rule = f"num_daily_mentions {config.mention_comparison} {config.mention_threshold}"
    con.execute(sql.BELOW_THRESHOLD.format(rule=rule))
    kept = quads.filter(passing).select(QUAD_SCHEMA.names).cast(QUAD_SCHEMA)
    order = [(name, "ascending") for name in ("date", "subject", "relation", "object")]
    return kept.sort_by(order).combine_chunks(), failing.num_rows


def _passing(mentions: pa.ChunkedArray, config: GdeltCleanConfig) -> pa.ChunkedArray:
    if config.mention_comparison == ">=":
        return pc.greater_equal(mentions, config.mention_threshold)
    return pc.greater(mentions, config.mention_threshold)


def _kept_events(con: duckdb.DuckDBPyConnection) -> pa.Table:
    events = _arrow(con, sql.KEPT_EVENTS)
    return events.cast(CLEAN_EVENT_SCHEMA).combine_chunks()


def _arrow(con: duckdb.DuckDBPyConnection, query: str) -> pa.Table:
    relation = con.sql(query)
    # DuckDB 1.4 renamed fetch_arrow_table to to_arrow_table (and deprecated the old name).
    fetch = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    table: pa.Table = fetch()
    return table


def _funnel(config: GdeltCleanConfig, counts: dict[str | None, int], items_in: int) -> list[dict[str, Any]]:
    """Rows each rule dropped and rows left after it, in the order the rules ran."""
    remaining = items_in
    funnel: list[dict[str, Any]] = []
    for rule in rules(config):
        dropped = {reason: counts.get(reason, 0) for reason in rule.reasons}
        remaining -= sum(dropped.values())
        funnel.append(
            {"rule": rule.name, "enabled": rule.enabled, "rejected": dropped, "remaining": remaining}
        )
    if remaining != counts.get(None, 0):
        raise AssertionError(f"{STAGE}: funnel ends at {remaining} rows but {counts.get(None, 0)} were kept")
    return funnel
