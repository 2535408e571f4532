"""DVC stage ``corpus_stats``: DuckDB statistics of the deduplicated corpus -> reports/."""

import sys

from almanac.reports.corpus_stats_stage import run

if __name__ == "__main__":
    sys.exit(run())
