"""DVC stage ``futuresim_index``: one BM25 index over the chunks of every month (scores comparable across
months, so a search spanning months ranks them together)."""

import sys

from almanac.futuresim.index_stage import run

if __name__ == "__main__":
    sys.exit(run())
