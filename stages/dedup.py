"""DVC stage ``dedup``: MinHash-LSH near-duplicate removal over all months in scope.

Reads the per-crawl-month signature files (``dedup_signatures``), bands them, reads back only the texts
of candidate pairs, and writes the kept articles month by month; texts are never all in memory. With
the band index of a previous run (``data/dedup/index``), added crawl months are probed against it and
only changed months are rewritten (almanac.dedup.incremental); the outputs are those of a full rebuild.
"""

import sys

from almanac.dedup.dedup_stage import run

if __name__ == "__main__":
    sys.exit(run())
