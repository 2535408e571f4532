"""DVC stage ``dedup_signatures@<crawl month>``: MinHash signatures of one crawl month's ingested articles.

A foreach item per crawl month (``ccnews_months``), so adding a month signs only that month: the other
months' signature files come back from the DVC cache. ``signed_documents`` in the metrics counts the
articles this stage signed.
"""

import sys

from almanac.dedup.signatures_stage import run

if __name__ == "__main__":
    sys.exit(run())
