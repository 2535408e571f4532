"""DVC stage ``ccnews_ingest@<month>``: CC-News WARC / news-please JSONL of one crawl month -> articles."""

import sys

from almanac.ccnews.ingest_stage import run

if __name__ == "__main__":
    sys.exit(run())
