"""DVC stage ``wcep_news``: each WCEP event's source links -> article text (CC-News corpus, else fetched)."""

import sys

from almanac.wcep.news_stage import run

if __name__ == "__main__":
    sys.exit(run())
