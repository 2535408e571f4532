"""DVC stage ``futurex_tiers``: the four FutureX tiers from the filtered events (funnel: futurex_stats);
Level-1 distractors from generated, unreleased OpenForesight candidates (none a released answer)."""

from __future__ import annotations

import time

import pyarrow as pa

from almanac.core.io import atomic_dir, read_parquet, write_parquet
from almanac.core.layout import (
    futurex_filtered,
    futurex_tiers_dir,
    futurex_tiers_rejects,
    metrics_path,
)
from almanac.core.params import months_in_scope
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.futurex.config import parse_futurex
from almanac.futurex.draws import relation_option
from almanac.futurex.inputs import distractor_pool, released_questions
from almanac.futurex.schema import EVENT_SCHEMA, LEVELS, tier_table
from almanac.futurex.series_events import read_numeric_questions, series_sigmas
from almanac.futurex.tiers import TIERS_STAGE, build_tiers
from almanac.mirai.cameo import CAMEO_CODES, SECOND_LEVEL_CODES


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or TIERS_STAGE, per_month=False)
    config = parse_futurex(params)
    events = read_parquet(futurex_filtered(), EVENT_SCHEMA).to_pylist()
    catalogue = [relation_option(code, CAMEO_CODES) for code in sorted(SECOND_LEVEL_CODES)]
    released = {str(row["question_id"]): str(row["answer"]) for row in released_questions()}
    pool = distractor_pool(months_in_scope(params), set(released))
    sigmas = series_sigmas(read_numeric_questions())  # Level 4 from series: their own sigma
    rows, ledger = build_tiers(events, config.tiers, config.seed, catalogue, pool, released, sigmas)
    tables: dict[int, pa.Table] = {
        level: tier_table([row for row in rows if row["level"] == level]) for level in LEVELS
    }
    with atomic_dir(futurex_tiers_dir()) as staging:
        for level, table in tables.items():
            write_parquet(table, staging / f"level{level}.parquet")
    finish_stage(ledger, started, futurex_tiers_rejects(), metrics_path(TIERS_STAGE))
    return 0
