"""The CC-News corpus stages: ingest per crawl month, MinHash signatures, dedup across months, statistics."""

from __future__ import annotations

from typing import Final

from almanac.core import layout as p
from almanac.pipeline.declare import ITEM, Stage

CCNEWS_INGEST: Final = Stage(
    name="ccnews_ingest",
    module="stages.ccnews_ingest",
    function="almanac.ccnews.ingest_stage:run",
    foreach="ccnews_months",  # not `months`: a build may have no CC-News (docs: sources a build reads)
    reads=("${ccnews_ingest.raw_dir}/${item}",),
    # not `months`: adding a month must not rerun the other months' ingest
    params=("ccnews_ingest", "empty_months.ccnews"),
    writes=(p.ingest_articles_dir(ITEM), p.ingest_rejects(ITEM), p.metrics_path("ccnews_ingest", ITEM)),
)
DEDUP_SIGNATURES: Final = Stage(
    name="dedup_signatures",
    module="stages.dedup_signatures",
    function="almanac.dedup.signatures_stage:run",
    foreach="ccnews_months",
    reads=(p.ingest_articles_dir(ITEM).as_posix(),),
    # only what changes a signature or the file's row groups: a new threshold re-signs nothing
    params=("dedup.ngram", "dedup.num_perm", "dedup.seed", "dedup.sign_batch_rows"),
    writes=(p.dedup_signatures(ITEM), p.metrics_path("dedup_signatures", ITEM)),
    note="MinHash signatures per crawl month: adding a month signs only that month "
    "(the others come from the cache).",
)
DEDUP: Final = Stage(
    name="dedup",
    module="stages.dedup",
    function="almanac.dedup.dedup_stage:run",
    reads=(p.dedup_signatures_dir().as_posix(), "data/ingest"),
    params=("months", "ccnews_ingest.raw_dir", "dedup"),  # the crawl months follow from both
    writes=(p.articles_dir(), p.dedup_rejects(), p.dedup_index_dir(), p.metrics_path("dedup")),
    # kept in place between runs: a month added is probed against the band index and only the corpus
    # months whose kept rows change are rewritten (almanac.dedup.incremental; same bytes as a rebuild)
    persist=(p.articles_dir(), p.dedup_index_dir()),
    note="The corpus: articles published in the months in scope, near-duplicates removed across months; "
    "incremental over the persisted band index (data/dedup/index), byte-identical to a full rebuild.",
)
CORPUS_STATS: Final = Stage(
    name="corpus_stats",
    module="stages.corpus_stats",
    function="almanac.reports.corpus_stats_stage:run",
    reads=(p.articles_dir().as_posix(), p.dedup_rejects().as_posix(), "data/ingest"),
    params=("months",),
    writes=(p.stats_report("corpus_stats"), p.stats_report("corpus_stats", ".json")),
)
STAGES: Final = (CCNEWS_INGEST, DEDUP_SIGNATURES, DEDUP, CORPUS_STATS)
