"""DVC stage ``corpus_stats``: DuckDB statistics of the deduplicated corpus -> reports/."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from almanac.core.io import write_json, write_text
from almanac.core.layout import articles_dir, dedup_rejects, ingest_dir
from almanac.core.params import months_in_scope
from almanac.core.stage import parse_stage_args
from almanac.stats.corpus import corpus_markdown, corpus_statistics

JSON_OUT = Path("reports/corpus_stats.json")
MARKDOWN_OUT = Path("reports/corpus_stats.md")


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or "corpus_stats", per_month=False)
    months = months_in_scope(params)
    stats = corpus_statistics(
        [articles_dir() / f"{month}.parquet" for month in months],
        [ingest_dir(month) / "rejects.parquet" for month in months],
        dedup_rejects(),
    )
    write_text(corpus_markdown(stats), MARKDOWN_OUT)
    stats["seconds"] = round(time.perf_counter() - started, 3)
    write_json(stats, JSON_OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
