"""DVC stage ``wiki_ingest``: Wikipedia pages-articles dumps -> articles with plain-text sections."""

import sys

from almanac.wiki.ingest_stage import run

if __name__ == "__main__":
    sys.exit(run())
