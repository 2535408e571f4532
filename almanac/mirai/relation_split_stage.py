"""DVC stage ``relation_split@<month>``: one month of GDELT quads -> a balanced sample of MIRAI queries."""

from __future__ import annotations

import sys
import time

from almanac.core.io import write_parquet
from almanac.core.layout import gdelt_articles, gdelt_quads, metrics_path, mirai_queries, mirai_rejects
from almanac.core.params import parse_section
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.gdelt.countries import ISO3_REGION
from almanac.mirai.recipe import PAPER, MiraiConfig
from almanac.mirai.relation_split import STAGE, RelationSplitConfig, build_month, read_quads, read_texts


def run() -> int:
    started = time.perf_counter()
    args, params = parse_stage_args(__doc__ or STAGE, per_month=True)
    config = parse_section(RelationSplitConfig, params, STAGE)
    recipe = parse_section(MiraiConfig, params, "mirai").recipe
    # The paper recipe counts an event's articles by their cleaned text (gdelt_articles); relaxed needs none.
    path = gdelt_quads()
    try:
        quads = read_quads(path)
        path = gdelt_articles()
        texts = read_texts(path) if recipe == PAPER else frozenset()
    except (OSError, ValueError) as error:
        print(f"{STAGE}: cannot read {path}: {error}", file=sys.stderr)
        return 1
    table, ledger = build_month(
        quads, args.month, config, ISO3_REGION, gdelt_quads().as_posix(), recipe=recipe, texts=texts
    )
    write_parquet(table, mirai_queries(args.month))
    finish_stage(ledger, started, mirai_rejects(args.month), metrics_path(STAGE, args.month))
    return 0
