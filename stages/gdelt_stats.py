"""DVC stage ``gdelt_stats``: DuckDB counts of GDELT events, quads, articles and queries -> reports/."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from pathlib import Path

from almanac.core.io import write_json, write_text
from almanac.core.layout import DATA, metrics_path
from almanac.core.params import months_in_scope, parse_section
from almanac.core.stage import parse_stage_args
from almanac.gdelt.countries import ISO3_REGION
from almanac.mirai.cameo import load_codebook
from almanac.mirai.relation_split import QUADS_PATH, queries_path
from almanac.stats.gdelt import gdelt_statistics, gdelt_stats_markdown, plot_series

STAGE = "gdelt_stats"
MARKDOWN_OUT = Path("reports/mirai_stats.md")
PLOTS_DIR = Path("reports/plots")
GDELT = DATA / "gdelt"


@dataclass(frozen=True)
class GdeltStatsConfig:
    cameo_codebook: str = ""  # optional CAMEO event-code file (code<TAB>description) for relation names


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(GdeltStatsConfig, params, STAGE)
    months = months_in_scope(params)
    try:
        codebook = load_codebook(config.cameo_codebook) if config.cameo_codebook else None
        stats = gdelt_statistics(
            months,
            {month: GDELT / "events" / f"{month}.parquet" for month in months},
            GDELT / "clean" / "events.parquet",
            QUADS_PATH,
            GDELT / "articles.parquet",
            {month: queries_path(month) for month in months},
            ISO3_REGION,
        )
    except (OSError, ValueError) as error:
        print(f"{STAGE}: {error}", file=sys.stderr)
        return 1
    write_text(gdelt_stats_markdown(stats, codebook), MARKDOWN_OUT)
    for name, text in plot_series(stats).items():
        write_text(text, PLOTS_DIR / name)
    stats["seconds"] = round(time.perf_counter() - started, 3)
    write_json(stats, metrics_path(STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
