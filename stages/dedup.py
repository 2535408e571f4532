"""DVC stage ``dedup``: MinHash-LSH near-duplicate removal over all months in scope.

Reads the per-crawl-month signature files (``dedup_signatures``), bands them, reads back only the texts
of candidate pairs, and writes the kept articles month by month; texts are never all in memory. With
the band index of a previous run (``data/dedup/index``), added crawl months are probed against it and
only changed months are rewritten (almanac.dedup.incremental); the outputs are those of a full rebuild.
"""

import os
import sys

# Before pyarrow loads: Arrow's mimalloc keeps freed pages for reuse instead of returning them to the
# OS after 10 ms. dedup streams every ingest file twice (verification's texts, then the corpus), and
# faulting fresh pages in for every batch cost ~1 s of system CPU at 100k articles; peak RSS is the same.
os.environ.setdefault("MIMALLOC_PURGE_DELAY", "-1")

from almanac.dedup.dedup_stage import run

if __name__ == "__main__":
    sys.exit(run())
