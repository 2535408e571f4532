"""Where each stage reads and writes. ``dvc.yaml`` declares the same paths; one test checks both agree."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pyarrow as pa

from almanac.core.io import read_parquet
from almanac.core.schemas import ARTICLE_SCHEMA

DATA = Path("data")
METRICS = Path("reports/metrics")


def metrics_path(stage: str, month: str | None = None) -> Path:
    return METRICS / stage / f"{month}.json" if month else METRICS / f"{stage}.json"


def ingest_dir(crawl_month: str) -> Path:
    """``articles/<publish month>.parquet`` and ``rejects.parquet`` of one CC-News crawl month."""
    return DATA / "ingest" / crawl_month


def articles_dir() -> Path:
    """The deduplicated corpus: ``<publish month>.parquet``, the input of every per-month dataset stage."""
    return DATA / "articles"


def read_corpus(months: Sequence[str]) -> pa.Table:
    """The deduplicated articles of ``months``, one table (for stages that look articles up by URL)."""
    return pa.concat_tables(
        [read_parquet(articles_dir() / f"{month}.parquet", ARTICLE_SCHEMA) for month in months]
    )


def dedup_rejects() -> Path:
    return DATA / "dedup" / "rejects.parquet"


def foresight_path(stage: str, month: str) -> Path:
    """Questions of one month after an OpenForesight stage (qgen, validate, select, ...)."""
    return DATA / "foresight" / stage / f"{month}.parquet"


def foresight_rejects(stage: str, month: str) -> Path:
    return DATA / "foresight" / stage / f"{month}.rejects.parquet"


def foresight_splits_dir() -> Path:
    """``<split>/<resolution month>.parquet`` of the released question splits."""
    return DATA / "foresight" / "splits"
