"""MIRAI-style relation queries of one month: candidate (date, subject, object) groups, a balanced sample.

A query asks which relations ``subject`` took towards ``object`` on ``date``: (t, s, ?, o). Its answer is
every second-level relation recorded in quads.parquet for that day and pair. The candidate pool is the
month's groups with enough coverage, and the thresholds apply to the group, not to each quad:

- the group is what is asked and answered, so the evidence that the pair interacted that day is measured
  on the same unit; each answer relation already passed gdelt_clean's per-quad mention threshold;
- ``num_daily_mentions`` (summed over the group's quads) and ``n_articles`` (distinct canonical URLs over
  the group) are stored in the query row, so anyone can check why a query was admitted.

MIRAI's scripts instead kept quads with >= 100 daily mentions and required each remaining quad of a query
to have >= 5 articles, and answered with those quads only; with answers taken from every recorded quad
(as here) a per-quad admission rule would judge a query on a different set than the one it is scored on.

The month is a closed interval of real dates, first to last calendar day; no string comparison.
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from almanac.core.ids import content_id
from almanac.core.layout import DATA
from almanac.core.months import MONTH_NAMES, parse_month
from almanac.core.rejects import StageLedger
from almanac.core.schemas import table_from_rows
from almanac.mirai.balance import Profile, balanced_sample, distribution
from almanac.mirai.cameo import is_relation_code, root_of

STAGE = "relation_split"
QUADS_PATH = DATA / "gdelt" / "clean" / "quads.parquet"
UNKNOWN_REGION = "Unknown"
QUAD_COLUMNS = ("quad_id", "date", "subject", "relation", "relation_root", "object", "num_daily_mentions")
BALANCED_ATTRIBUTES = ("date", "root", "region", "country")


def queries_path(month: str) -> Path:
    return DATA / "mirai" / "queries" / f"{month}.parquet"


def rejects_path(month: str) -> Path:
    return DATA / "mirai" / "rejects" / f"{month}.parquet"


@dataclass(frozen=True)
class BalanceWeights:
    date: float = 1.0
    root: float = 1.0
    region: float = 1.0
    country: float = 1.0


@dataclass(frozen=True)
class RelationSplitConfig:
    min_daily_mentions: int = 100  # sum of the group's quads' NumDailyMentions (MIRAI test split: 100)
    min_articles: int = 5  # distinct canonical URLs of the group (MIRAI: 5)
    queries_per_month: int = 100
    seed: int = 7
    balance_weights: BalanceWeights = field(default_factory=BalanceWeights)
    horizons_days: tuple[int, ...] = (1, 7, 30, 90)

    def __post_init__(self) -> None:
        if self.min_daily_mentions < 0 or self.min_articles < 0:
            raise ValueError("relation_split thresholds must be >= 0")
        if self.queries_per_month < 1:
            raise ValueError("relation_split.queries_per_month must be >= 1")
        if any(days < 0 for days in self.horizons_days) or len(set(self.horizons_days)) != len(
            self.horizons_days
        ):
            raise ValueError("relation_split.horizons_days must be distinct non-negative day counts")

    def weights(self) -> dict[str, float]:
        return {name: float(getattr(self.balance_weights, name)) for name in BALANCED_ATTRIBUTES}


HORIZON = pa.struct([pa.field("days", pa.int32()), pa.field("last_history_date", pa.date32())])
ROOT_ANSWERS = pa.struct([pa.field("root", pa.string()), pa.field("relations", pa.list_(pa.string()))])
QUERY_SCHEMA = pa.schema(
    [
        pa.field("query_id", pa.string(), nullable=False),  # content_id(date ISO, subject, object)
        pa.field("month", pa.string(), nullable=False),
        pa.field("date", pa.date32(), nullable=False),
        pa.field("date_text", pa.string(), nullable=False),  # "May 12, 2025"
        pa.field("subject", pa.string(), nullable=False),  # ISO 3166 alpha-3
        pa.field("object", pa.string(), nullable=False),
        pa.field("subject_region", pa.string(), nullable=False),  # UN M49 sub-region, or "Unknown"
        pa.field("object_region", pa.string(), nullable=False),
        pa.field("query", pa.string(), nullable=False),  # "(2025-05-12, USA, ?, CHN)"
        pa.field("answers", pa.list_(pa.string()), nullable=False),  # sorted second-level codes
        pa.field("answers_by_root", pa.list_(ROOT_ANSWERS), nullable=False),  # sorted by root
        pa.field("answer_roots", pa.list_(pa.string()), nullable=False),
        pa.field("num_daily_mentions", pa.int64(), nullable=False),
        pa.field("n_articles", pa.int32(), nullable=False),
        pa.field("urls", pa.list_(pa.string()), nullable=False),
        pa.field("horizons", pa.list_(HORIZON), nullable=False),  # last_history_date = date - days
    ]
)


def month_window(month: str) -> tuple[date, date]:
    """First and last calendar day of the month, both inclusive."""
    year, number = parse_month(month)
    return date(year, number, 1), date(year, number, calendar.monthrange(year, number)[1])


def date_text(day: date) -> str:
    return f"{MONTH_NAMES[day.month - 1].capitalize()} {day.day}, {day.year}"


def read_quads(path: str | Path) -> pa.Table:
    """The columns of quads.parquet this stage uses; a missing column is a clear error."""
    names = pq.read_schema(path).names
    missing = [name for name in (*QUAD_COLUMNS, "urls") if name not in names]
    if missing:
        raise ValueError(f"{path}: missing columns {missing}")
    return pq.read_table(path, columns=[*QUAD_COLUMNS, "urls"])


def quads_of_month(quads: pa.Table, month: str) -> pa.Table:
    first, last = month_window(month)
    days = quads.column("date").cast(pa.date32())
    inside = pc.and_(
        pc.greater_equal(days, pa.scalar(first, pa.date32())),
        pc.less_equal(days, pa.scalar(last, pa.date32())),
    )
    return quads.filter(pc.fill_null(inside, False))


@dataclass
class Group:
    """The quads of one (date, subject, object)."""

    day: date
    subject: str
    object: str
    relations: set[str] = field(default_factory=set)
    mentions: int = 0
    urls: set[str] = field(default_factory=set)

    @property
    def query_id(self) -> str:
        return content_id(self.day.isoformat(), self.subject, self.object)

    @property
    def label(self) -> str:
        return f"({self.day.isoformat()}, {self.subject}, ?, {self.object})"

    @property
    def roots(self) -> list[str]:
        return sorted({root_of(code) for code in self.relations})


def quad_problem(row: Mapping[str, Any]) -> str | None:
    """Why a quads.parquet row cannot be used (None when it is fine)."""
    relation, subject, obj = row["relation"], row["subject"], row["object"]
    if not is_relation_code(relation):
        return f"relation {relation!r} is not a second-level CAMEO code"
    if row["relation_root"] != relation[:2]:
        return f"relation_root {row['relation_root']!r} does not match relation {relation!r}"
    for role, code in (("subject", subject), ("object", obj)):
        if not (isinstance(code, str) and len(code) == 3 and code.isascii() and code.isupper()):
            return f"{role} {code!r} is not an ISO 3166 alpha-3 code"
    if subject == obj:
        return f"subject and object are both {subject}"
    mentions = row["num_daily_mentions"]
    if mentions is None or mentions < 0:
        return f"num_daily_mentions {mentions!r} is not a count"
    return None


def group_quads(rows: Sequence[Mapping[str, Any]], ledger: StageLedger, source: str) -> list[Group]:
    """Fold valid quads into groups (sorted by query_id); malformed or repeated quads become rejects."""
    groups: dict[tuple[date, str, str], Group] = {}
    seen: set[str] = set()
    for row in sorted(rows, key=lambda r: str(r["quad_id"])):
        quad_id = str(row["quad_id"])
        problem = "repeated quad_id" if quad_id in seen else quad_problem(row)
        seen.add(quad_id)
        if problem:
            ledger.items_in += 1
            ledger.reject(quad_id, "invalid_quad", problem, f"{source}:{quad_id}")
            continue
        key = (row["date"], row["subject"], row["object"])
        group = groups.setdefault(key, Group(*key))
        group.relations.add(row["relation"])
        group.mentions += int(row["num_daily_mentions"])
        group.urls.update(url for url in row["urls"] or () if url)
    return sorted(groups.values(), key=lambda g: g.query_id)


def below_threshold(group: Group, config: RelationSplitConfig) -> tuple[str, str] | None:
    """(reason, detail) when the group lacks coverage; mentions are checked first, the detail has both."""
    numbers = f"num_daily_mentions={group.mentions}, articles={len(group.urls)}"
    if group.mentions < config.min_daily_mentions:
        return "too_few_mentions", f"{numbers}; need >= {config.min_daily_mentions} mentions"
    if len(group.urls) < config.min_articles:
        return "too_few_articles", f"{numbers}; need >= {config.min_articles} articles"
    return None


def region_of(country: str, regions: Mapping[str, str]) -> str:
    return regions.get(country, UNKNOWN_REGION)


def profile(group: Group, regions: Mapping[str, str]) -> Profile:
    return {
        "date": (group.day.isoformat(),),
        "root": tuple(group.roots),
        "region": (region_of(group.subject, regions), region_of(group.object, regions)),
        "country": (group.subject, group.object),
    }


def query_row(
    group: Group, month: str, regions: Mapping[str, str], horizons: Sequence[int]
) -> dict[str, Any]:
    answers = sorted(group.relations)
    roots = group.roots
    return {
        "query_id": group.query_id,
        "month": month,
        "date": group.day,
        "date_text": date_text(group.day),
        "subject": group.subject,
        "object": group.object,
        "subject_region": region_of(group.subject, regions),
        "object_region": region_of(group.object, regions),
        "query": group.label,
        "answers": answers,
        "answers_by_root": [
            {"root": root, "relations": [code for code in answers if code[:2] == root]} for root in roots
        ],
        "answer_roots": roots,
        "num_daily_mentions": group.mentions,
        "n_articles": len(group.urls),
        "urls": sorted(group.urls),
        "horizons": [
            {"days": days, "last_history_date": group.day - timedelta(days=days)} for days in sorted(horizons)
        ],
    }


def build_month(
    quads: pa.Table,
    month: str,
    config: RelationSplitConfig,
    regions: Mapping[str, str],
    source: str = "quads.parquet",
) -> tuple[pa.Table, StageLedger]:
    """The month's balanced query sample (QUERY_SCHEMA, sorted by query_id) and its ledger.

    Items are the month's (date, subject, object) groups, plus any malformed quad rows. A group is
    kept (sampled), or rejected as too_few_mentions / too_few_articles / not_sampled.
    """
    first, last = month_window(month)
    rows = quads_of_month(quads, month).to_pylist()
    ledger = StageLedger(STAGE)
    groups = group_quads(rows, ledger, source)
    ledger.items_in += len(groups)
    candidates: list[Group] = []
    for group in groups:
        problem = below_threshold(group, config)
        if problem:
            ledger.reject(
                group.query_id, problem[0], f"{group.label} {problem[1]}", f"{source}:{group.label}"
            )
        else:
            candidates.append(group)
    profiles = [profile(group, regions) for group in candidates]
    picks = balanced_sample(profiles, config.queries_per_month, config.weights(), config.seed)
    chosen = set(picks)
    for index, group in enumerate(candidates):
        if index not in chosen:
            ledger.reject(group.query_id, "not_sampled", group.label, f"{source}:{group.label}")
    ledger.items_out = len(picks)
    query_rows = sorted(
        (query_row(candidates[i], month, regions, config.horizons_days) for i in picks),
        key=lambda row: row["query_id"],
    )
    unknown = sorted({c for g in groups for c in (g.subject, g.object) if c not in regions})
    ledger.extra.update(
        {
            "month": month,
            "window": {"first_day": first.isoformat(), "last_day": last.isoformat()},
            "quads_in_month": len(rows),
            "groups": len(groups),
            "candidates": len(candidates),
            "requested": config.queries_per_month,
            "sampled": len(picks),
            "took_all_candidates": len(candidates) <= config.queries_per_month,
            "shortfall": max(0, config.queries_per_month - len(candidates)),
            "thresholds": {
                "applied_to": "group",
                "min_daily_mentions": config.min_daily_mentions,
                "min_articles": config.min_articles,
            },
            "seed": config.seed,
            "balance_weights": config.weights(),
            "sample_distribution": distribution(profiles, picks),
            "candidate_distribution": distribution(profiles, range(len(profiles))),
            "countries_without_region": unknown,
        }
    )
    return table_from_rows(query_rows, QUERY_SCHEMA), ledger
