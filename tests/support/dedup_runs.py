"""Signing and deduplicating a scratch project's crawl months in this process, as the two stages do, for the
tests of the incremental dedup (the working directory is the project)."""

from __future__ import annotations

from pathlib import Path

from almanac.core.io import write_parquet
from almanac.core.layout import dedup_rejects, dedup_signatures, ingest_dir
from almanac.core.parallel import RayConfig
from almanac.dedup.incremental import dedup_corpus
from almanac.dedup.near_duplicates import DedupConfig, record_selection
from almanac.dedup.signature_store import sign_crawl_month

SERIAL = RayConfig(executor="serial")


def sign(crawl: str, config: DedupConfig) -> None:
    sign_crawl_month(
        ingest_dir(crawl) / "articles", dedup_signatures(crawl), config.minhash, config.sign_batch_rows
    )


def deduplicate(
    crawls: list[str], months: list[str], config: DedupConfig
) -> tuple[dict[str, object], dict[str, float]]:
    """The dedup stage's work on ``crawls`` for ``months``; its metrics and its run counts."""
    ledger, selection = dedup_corpus(crawls, months, config, SERIAL)
    record_selection(ledger, selection)
    write_parquet(ledger.rejects_table(), Path(dedup_rejects()))
    return ledger.metrics(), dict(ledger.run_counts)
