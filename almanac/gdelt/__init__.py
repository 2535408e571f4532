"""GDELT 2.0 event exports: download (masterfilelist + MD5), typed ingest, cleaning, article links.

Paths of the GDELT stages' outputs live here so that every stage and test names them the same way.
"""

from __future__ import annotations

from pathlib import Path

from almanac.core.layout import DATA

GDELT_DIR = DATA / "gdelt"


def raw_month_dir(month: str) -> Path:
    """``<name>.zip`` files of one month and their ``MANIFEST.json`` (gdelt_download)."""
    return GDELT_DIR / "raw" / month


def events_path(month: str) -> Path:
    return GDELT_DIR / "events" / f"{month}.parquet"


def mentions_path(month: str) -> Path:
    return GDELT_DIR / "mentions" / f"{month}.parquet"


def ingest_rejects_path(month: str) -> Path:
    return GDELT_DIR / "ingest_rejects" / f"{month}.parquet"
