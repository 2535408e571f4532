"""DVC stage ``wiki_filter``: Wikipedia articles -> event articles (section titles, LLM category and date)."""

import sys

from almanac.events.wiki_filter_stage import run

if __name__ == "__main__":
    sys.exit(run())
