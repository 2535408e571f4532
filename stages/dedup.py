"""DVC stage ``dedup``: MinHash-LSH near-duplicate removal over all months in scope.

Reads the per-crawl-month signature files (``dedup_signatures``), bands them, reads back only the texts
of candidate pairs, and writes the kept articles month by month; texts are never all in memory.
"""

from __future__ import annotations

import sys
import time

from almanac.core.layout import articles_dir, dedup_rejects, dedup_signatures, metrics_path
from almanac.core.parallel import RayConfig
from almanac.core.params import ccnews_months, months_in_scope, parse_section
from almanac.core.rejects import TableLedger
from almanac.core.stage import finish_stage, parse_stage_args
from almanac.dedup.corpus_io import StoredTexts, write_corpus
from almanac.dedup.near_duplicates import STAGE, DedupConfig, record_selection
from almanac.dedup.signature_store import read_signed
from almanac.dedup.survivors import select_survivors


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    months = months_in_scope(params)
    crawled = ccnews_months(params)
    config = parse_section(DedupConfig, params, STAGE)
    ray_config = parse_section(RayConfig, params, "ray")
    missing = [month for month in crawled if not dedup_signatures(month).is_file()]
    if missing:
        print(f"{STAGE}: no signatures for months {missing}; run dedup_signatures first", file=sys.stderr)
        return 1
    # No CC-News month (ccnews_ingest.raw_dir: "") gives an empty corpus on purpose, never a missing one.
    signed = read_signed(
        [dedup_signatures(month) for month in crawled],
        config.num_perm,
        config.bands,
        config.rows,
        config.text_batch_rows,
    )
    ledger = TableLedger(STAGE)
    texts = StoredTexts(signed.meta, config.text_batch_rows)
    selection = select_survivors(
        signed.meta, signed.hashes, signed.empty, months, config.select, texts, ledger, ray_config
    )
    record_selection(ledger, selection)
    ledger.extra["ccnews_months"] = crawled
    write_corpus(
        signed.meta, selection.kept, months, articles_dir(), config.text_batch_rows, config.select.workers
    )
    finish_stage(ledger, started, dedup_rejects(), metrics_path(STAGE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
