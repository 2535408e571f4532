"""DVC stage ``gdelt_stats``: DuckDB counts of GDELT events, quads, articles and queries -> reports/."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Any

from almanac.core.io import write_text
from almanac.core.layout import (
    gdelt_articles,
    gdelt_clean_events,
    gdelt_events,
    gdelt_quads,
    metrics_path,
    mirai_queries,
    plot_file,
    stats_report,
)
from almanac.core.metrics import write_metrics
from almanac.core.params import months_in_scope, parse_section
from almanac.core.stage import end_stage, parse_stage_args
from almanac.gdelt.countries import ISO3_REGION
from almanac.mirai.cameo import load_codebook
from almanac.reports.gdelt_stats import gdelt_statistics, gdelt_stats_markdown, plot_series

STAGE = "gdelt_stats"


@dataclass(frozen=True)
class GdeltStatsConfig:
    cameo_codebook: str = ""  # optional CAMEO event-code file (code<TAB>description) for relation names


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(GdeltStatsConfig, params, STAGE)
    months = months_in_scope(params)
    try:
        codebook = load_codebook(config.cameo_codebook) if config.cameo_codebook else None
        stats = gdelt_statistics(
            months,
            {month: gdelt_events(month) for month in months},
            gdelt_clean_events(),
            gdelt_quads(),
            gdelt_articles(),
            {month: mirai_queries(month) for month in months},
            ISO3_REGION,
        )
    except (OSError, ValueError) as error:
        print(f"{STAGE}: {error}", file=sys.stderr)
        return 1
    write_text(gdelt_stats_markdown(stats, codebook), stats_report("mirai_stats"))
    series = plot_series(stats)
    for name, text in series.items():
        write_text(text, plot_file(name))
    write_metrics(stats, metrics_path(STAGE))
    total: dict[str, Any] = next((row for row in stats["counts"] if row["month"] == "total"), {})
    described = f"{total.get('quads', 0)} quads and {total.get('queries', 0)} queries described"
    end_stage(STAGE, f"{described}, {len(series)} plot series written", started)
    return 0
