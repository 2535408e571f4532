"""Where the series stages read and write (``data/series/``).

Imported by name (``from almanac.core.layout.series_paths import ...``), not re-exported by the package:
every stage imports ``almanac.core.layout``, so a module added there would be a code dep of all of them.
"""

from __future__ import annotations

from pathlib import Path

SERIES = Path("data") / "series"


def series_observations() -> Path:
    """Every series value with the day it became known (almanac.series.schema.OBSERVATION_SCHEMA)."""
    return SERIES / "observations.parquet"


def series_ingest_rejects() -> Path:
    return SERIES / "ingest_rejects.parquet"


def series_splits_dir() -> Path:
    """``<split>/<resolution month>.parquet``: the released questions of the series style."""
    return SERIES / "splits"


def series_question_rejects() -> Path:
    return SERIES / "question_rejects.parquet"
