"""DVC stage ``series_ingest``: the series files the manifest lists -> data/series/observations.parquet."""

import sys

from almanac.series.ingest_stage import run

if __name__ == "__main__":
    sys.exit(run())
