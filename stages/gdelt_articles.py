"""DVC stage ``gdelt_articles``: the text behind each clean GDELT event URL, found and cleaned."""

import sys

from almanac.gdelt.articles_stage import run

if __name__ == "__main__":
    sys.exit(run())
