"""DVC stage ``futurex_filter``: harmful and subjective events dropped by the judge roles' vote, yes/no
events down-sampled, at most a param's worth of events per source and day."""

import sys

from almanac.futurex.filter_stage import run

if __name__ == "__main__":
    sys.exit(run())
