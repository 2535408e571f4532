"""MIRAI-style relation queries of one month: candidate (date, subject, object) groups, a balanced sample.

A query asks which relations ``subject`` took towards ``object`` on ``date``: (t, s, ?, o). Its answer is
every second-level relation recorded in quads.parquet for that day and pair (every event of the database,
which gdelt_clean already limited to >= 50 daily mentions per event; under ``paper`` with
``answers_need_text`` only the events one of whose articles kept its text, as MIRAI's authors). Which
day-pairs become queries is decided by the recipe (``params.yaml: mirai.recipe``, see
:mod:`almanac.mirai.recipe` and :mod:`almanac.mirai.admission`): ``paper`` needs an event of the day-pair
with >= 100 daily mentions, and every such event (``admission: every``) with >= 5 articles whose cleaned
text survived; ``relaxed`` checks the same numbers on the whole group and counts source URLs instead of
texts. The admitted groups are then sampled per month (:mod:`almanac.mirai.balance`), on the profile
:func:`profile` gives them.

Each query row stores what its admission was checked on (``test_relations``, ``num_daily_mentions``,
``n_articles``, ``n_text_articles``, ``urls``) and the ``recipe``, so anyone can check why it was admitted.
The month is a closed interval of real dates, first to last calendar day; no string comparison.
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping, Sequence, Set
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.parquet as pq

from almanac.core.field_roles import Role
from almanac.core.io import read_parquet
from almanac.core.lazy import lazy_module
from almanac.core.months import MONTH_NAMES, parse_month
from almanac.core.rejects import StageLedger
from almanac.core.schemas import table_from_rows
from almanac.core.step import Drop, apply_filter, apply_step, filter_step, fold_into
from almanac.mirai.admission import Group as Group
from almanac.mirai.admission import admit
from almanac.mirai.balance import balance_summary, balanced_sample, distribution
from almanac.mirai.cameo import is_relation_code
from almanac.mirai.recipe import EVENT_WITHOUT_TEXT, INVALID_QUAD, NOT_SAMPLED, PAPER, RELAXED, rules_of
from almanac.mirai.split_config import BALANCED_ATTRIBUTES as BALANCED_ATTRIBUTES
from almanac.mirai.split_config import UNKNOWN_REGION as UNKNOWN_REGION
from almanac.mirai.split_config import BalanceWeights as BalanceWeights
from almanac.mirai.split_config import RelationSplitConfig as RelationSplitConfig
from almanac.mirai.split_config import _tested, profile, region_of, sampler_weights

if TYPE_CHECKING:
    import pyarrow.compute as pc
else:  # ~0.1 s at import (it builds every compute function's wrapper): paid where used
    pc = lazy_module("pyarrow.compute")

STAGE = "relation_split"
QUAD_COLUMNS = ("quad_id", "date", "subject", "relation", "relation_root", "object", "num_daily_mentions")
HORIZON = pa.struct([pa.field("days", pa.int32()), pa.field("last_history_date", pa.date32())])
ROOT_ANSWERS = pa.struct([pa.field("root", pa.string()), pa.field("relations", pa.list_(pa.string()))])
QUERY_SCHEMA = pa.schema(
    [
        pa.field("query_id", pa.string(), nullable=False),  # content_id(date ISO, subject, object)
        pa.field("month", pa.string(), nullable=False),
        pa.field("recipe", pa.string(), nullable=False),  # "paper" | "relaxed"
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
        # the answers whose own event met the test thresholds (paper); every answer under relaxed
        pa.field("test_relations", pa.list_(pa.string()), nullable=False),
        pa.field("num_daily_mentions", pa.int64(), nullable=False),
        pa.field("n_articles", pa.int32(), nullable=False),  # distinct source URLs of the day-pair
        pa.field("n_text_articles", pa.int32(), nullable=False),  # ... whose cleaned text survived
        pa.field("urls", pa.list_(pa.string()), nullable=False),
        pa.field("horizons", pa.list_(HORIZON), nullable=False),  # last_history_date = date - days
    ]
)

# What a forecaster sees of a released MIRAI query: the role of each column.
# Undeclared columns are provenance (almanac/core/field_roles.py).
FIELD_ROLES: dict[str, Role] = {
    "date": "prompt",
    "date_text": "prompt",
    "subject": "prompt",
    "object": "prompt",
    "query": "prompt",
    "horizons": "prompt",
    "answers": "answer",
    "answers_by_root": "answer",
    "answer_roots": "answer",
    "query_id": "provenance",
    "month": "provenance",
    "subject_region": "provenance",
    "object_region": "provenance",
    # Counted over the answer day's events, so they describe the outcome: not shown.
    "num_daily_mentions": "provenance",
    "n_articles": "provenance",
    "urls": "provenance",
}


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
    return read_parquet(path, columns=[*QUAD_COLUMNS, "urls"])


def quads_of_month(quads: pa.Table, month: str) -> pa.Table:
    first, last = month_window(month)
    days = quads.column("date").cast(pa.date32())
    inside = pc.and_(
        pc.greater_equal(days, pa.scalar(first, pa.date32())),
        pc.less_equal(days, pa.scalar(last, pa.date32())),
    )
    return quads.filter(pc.fill_null(inside, False))


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


def read_texts(path: str | Path) -> frozenset[str]:
    """The canonical URLs whose article text survived gdelt_articles' cleaning."""
    if "url" not in pq.read_schema(path).names:
        raise ValueError(f"{path}: missing column url")
    return frozenset(str(url) for url in read_parquet(path, columns=["url"]).column("url").to_pylist())


def _urls_of(row: Mapping[str, Any]) -> list[str]:
    return [str(url) for url in row["urls"] or () if url]


def group_quads(
    rows: Sequence[Mapping[str, Any]],
    ledger: StageLedger,
    source: str,
    texts: Set[str] = frozenset(),
    need_text: bool = False,
) -> list[Group]:
    """Fold valid quads into groups (sorted by query_id); malformed or repeated quads become rejects, and
    with ``need_text`` so do quads none of whose URLs is in ``texts`` (``event_without_text``).

    Counting: every quad is checked as a step; the valid ones are then folded into their groups, which
    replace them as the items handed on (:func:`almanac.core.step.fold_into`).
    """
    seen: set[str] = set()
    valid_pairs: set[tuple[Any, Any, Any]] = set()

    def check(row: Mapping[str, Any]) -> Drop | None:
        quad_id = str(row["quad_id"])
        problem = "repeated quad_id" if quad_id in seen else quad_problem(row)
        seen.add(quad_id)
        if problem:
            return Drop(INVALID_QUAD, problem)
        valid_pairs.add((row["date"], row["subject"], row["object"]))
        urls = _urls_of(row)
        if need_text and not any(url in texts for url in urls):
            label = f"({row['date']}, {row['subject']}, {row['relation']}, {row['object']})"
            return Drop(EVENT_WITHOUT_TEXT, f"{label}: none of its {len(urls)} source URLs kept its text")
        return None

    def quad_source(row: Mapping[str, Any]) -> str:
        return f"{source}:{row['quad_id']}"

    ordered = sorted(rows, key=lambda r: str(r["quad_id"]))
    valid = apply_filter(ordered, check, ledger, lambda row: str(row["quad_id"]), quad_source)
    groups: dict[tuple[date, str, str], Group] = {}
    for row in valid:
        key = (row["date"], row["subject"], row["object"])
        group = groups.setdefault(key, Group(*key))
        group.add(str(row["relation"]), int(row["num_daily_mentions"]), _urls_of(row), texts)
    fold_into(ledger, len(valid), len(groups))
    if need_text:
        ledger.extra["day_pairs_without_text"] = len(valid_pairs) - len(groups)
    return sorted(groups.values(), key=lambda g: g.query_id)


def _query_id(group: Group) -> str:
    return group.query_id


def query_row(
    group: Group,
    month: str,
    regions: Mapping[str, str],
    horizons: Sequence[int],
    recipe: str = PAPER,
) -> dict[str, Any]:
    answers = sorted(group.relations)
    roots = group.roots
    tested = _tested(group)
    return {
        "query_id": group.query_id,
        "month": month,
        "recipe": recipe,
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
        "test_relations": sorted(tested),
        "num_daily_mentions": group.mentions,
        "n_articles": len(group.urls),
        "n_text_articles": len(group.text_urls),
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
    recipe: str = PAPER,
    texts: Set[str] = frozenset(),
) -> tuple[pa.Table, StageLedger]:
    """The month's balanced query sample (QUERY_SCHEMA, sorted by query_id) and its ledger.

    Items are the month's (date, subject, object) groups, plus any malformed quad rows. A group is kept
    (sampled), or rejected by the recipe's threshold rules (:func:`almanac.mirai.admission.admit`) or as
    not_sampled. ``texts``: canonical URLs whose cleaned article text survived (used by ``paper``).
    """
    if recipe not in (PAPER, RELAXED):
        raise ValueError(f"unknown MIRAI recipe {recipe!r}")
    first, last = month_window(month)
    rows = quads_of_month(quads, month).to_pylist()
    ledger = StageLedger(STAGE)
    need_text = recipe == PAPER and config.answers_need_text
    groups = group_quads(rows, ledger, source, texts, need_text)
    # so far the ledger holds the malformed quads and (paper) the events without text only
    invalid = sum(reject.reason == INVALID_QUAD for reject in ledger.rejects)
    textless = len(ledger.rejects) - invalid
    pairs_without_text = int(ledger.extra.get("day_pairs_without_text", 0))
    every = config.admission == "every"
    admission = admit(groups, recipe, config.min_daily_mentions, config.min_articles, texts, every)
    refused = {
        group.query_id: Drop(reason, f"{group.label} {detail}")
        for group, reason, detail in admission.rejected
    }

    def group_source(group: Group) -> str:
        return f"{source}:{group.label}"

    def admitted(group: Group) -> Drop | None:
        return refused.get(group.query_id)

    admission_step = filter_step(admitted, _query_id, group_source)
    candidates = apply_step(groups, admission_step, ledger, chained=True)
    assert candidates == admission.admitted, "admission keeps the groups in their order"
    profiles = [profile(group, regions, config.balance_actors) for group in candidates]
    weights = config.weights()
    picks = balanced_sample(
        profiles, config.queries_per_month, sampler_weights(config, candidates, regions), config.seed
    )
    chosen = set(picks)

    def sampled(group: Group) -> Drop | None:
        return None if group.query_id in chosen_ids else Drop(NOT_SAMPLED, group.label)

    chosen_ids = {candidates[index].query_id for index in chosen}
    apply_step(candidates, filter_step(sampled, _query_id, group_source), ledger, chained=True)
    unsampled = [group for index, group in enumerate(candidates) if index not in chosen]
    query_rows = sorted(
        (query_row(candidates[i], month, regions, config.horizons_days, recipe) for i in picks),
        key=lambda row: row["query_id"],
    )
    unknown = sorted({c for g in groups for c in (g.subject, g.object) if c not in regions})
    left = len(groups)
    steps: list[dict[str, Any]] = [
        {
            "rule": INVALID_QUAD,
            "unit": "event",
            "events_removed": invalid,
            "queries_removed": 0,
            "queries_left": left + pairs_without_text,
        }
    ]
    if recipe == PAPER:  # day-pairs whose every event lacked text never became a group
        steps.append(
            {
                "rule": EVENT_WITHOUT_TEXT,
                "unit": "event",
                "events_removed": textless,
                "queries_removed": pairs_without_text,
                "queries_left": left,
            }
        )
    for step in admission.steps:
        left -= step.queries_removed
        steps.append(step.as_metrics(left))
    steps.append(
        {
            "rule": NOT_SAMPLED,
            "unit": "group",
            "events_removed": sum(len(_tested(g)) for g in unsampled),
            "queries_removed": len(unsampled),
            "queries_left": len(picks),
        }
    )
    assert [step["rule"] for step in steps] == [rule.reason for rule in rules_of(recipe)]
    ledger.extra.update(
        {
            "month": month,
            "recipe": recipe,
            "window": {"first_day": first.isoformat(), "last_day": last.isoformat()},
            "quads_in_month": len(rows),
            "groups": len(groups),
            "candidates": len(candidates),
            "requested": config.queries_per_month,
            "sampled": len(picks),
            "took_all_candidates": len(candidates) <= config.queries_per_month,
            "shortfall": max(0, config.queries_per_month - len(candidates)),
            "thresholds": {
                "applied_to": "event" if recipe == PAPER else "group",
                "answers_need_text": need_text,
                "admission": config.admission if recipe == PAPER else "group",
                "min_daily_mentions": config.min_daily_mentions,
                "min_articles": config.min_articles,
                "articles_counted": "cleaned text survived" if recipe == PAPER else "source URLs",
            },
            "rules": steps,
            "test_events": sum(len(_tested(g)) for g in candidates),
            "seed": config.seed,
            "balance_weights": weights,
            "balance_actors": config.balance_actors,
            "balance_objective": config.balance_objective,
            "balance": balance_summary(profiles, picks, weights),
            "sample_distribution": distribution(profiles, picks),
            "candidate_distribution": distribution(profiles, range(len(profiles))),
            "countries_without_region": unknown,
        }
    )
    return table_from_rows(query_rows, QUERY_SCHEMA), ledger
