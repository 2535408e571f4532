"""DVC stage ``futurex_events``: candidate events from the released OpenForesight test questions, the GDELT
day-pairs MIRAI queries come from, and the numeric answers OpenForesight's answer-type filter drops; none
repeats a released train/validation row of another style (``check.cross_style``)."""

from __future__ import annotations

import time

from almanac.core.io import write_parquet
from almanac.core.layout import futurex_events, futurex_events_rejects, metrics_path
from almanac.core.params import months_in_scope, parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.crossstyle.near_duplicates import TrainingIndex, parse_cross_style
from almanac.crossstyle.released_rows import foresight_row, openforecast_row
from almanac.foresight.split import SplitConfig
from almanac.futurex.config import parse_futurex
from almanac.futurex.events import EVENTS_STAGE, CandidateRules, collect_events
from almanac.futurex.inputs import day_pairs, numeric_rejects, openforecast_training, released_questions
from almanac.futurex.schema import events_table
from almanac.futurex.series_events import read_numeric_questions
from almanac.mirai.cameo import CAMEO_CODES


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or EVENTS_STAGE, per_month=False)
    config = parse_futurex(params)
    numeric = numeric_rejects(months_in_scope(params), config.events.numeric_reasons)
    split = parse_section(SplitConfig, params.get("foresight") or {}, "split")
    cross = parse_cross_style(params)
    questions = released_questions()
    training = [foresight_row(row) for row in questions if row["split"] != "test"]
    training += [row for row in map(openforecast_row, openforecast_training()) if row is not None]
    rules = CandidateRules(
        test_months=frozenset(split.test_months),
        test_sources=frozenset(split.test_sources),
        training_urls=frozenset(str(row["url"]) for row in questions if row["split"] != "test"),
        training=TrainingIndex(training, cross),
        action=cross.action,
    )
    series = read_numeric_questions()
    events, ledger = collect_events(questions, day_pairs(), numeric, CAMEO_CODES, rules, series)
    write_parquet(events_table(events), futurex_events())
    finish_stage(ledger, started, futurex_events_rejects(), metrics_path(EVENTS_STAGE))
    return 0
