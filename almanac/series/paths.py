"""Where the series stages read and write (``data/series/``)."""

from __future__ import annotations

from pathlib import Path

SERIES = Path("data") / "series"


def observations() -> Path:
    """Every series value with the day it became known (almanac.series.schema.OBSERVATION_SCHEMA)."""
    return SERIES / "observations.parquet"


def ingest_rejects() -> Path:
    return SERIES / "ingest_rejects.parquet"


def splits_dir() -> Path:
    """``<split>/<resolution month>.parquet``: the released questions of the series style."""
    return SERIES / "splits"


def question_rejects() -> Path:
    return SERIES / "question_rejects.parquet"
