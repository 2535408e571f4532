"""DVC stage ``futuresim_corpus@<month>``: one month of the corpus as day folders of JSONL and as chunks."""

import sys

from almanac.futuresim.corpus_stage import run

if __name__ == "__main__":
    sys.exit(run())
