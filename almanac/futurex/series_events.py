"""FutureX Level 4 from the series style (issue 29 item 4, issue 28 item 3): numeric series questions as
candidate events, and their sigma from the series' recent values (FutureX: the outcome's standard
deviation over the past 7 days; here over ``series.questions.sigma_window`` values known on the
resolution date, computed by ``almanac.series.questions``).

Only the series *test* split feeds FutureX (a train or validation question may have been trained on:
``in_training_split``). The background lists the figures known on the forecast date; a question whose
answer is written among them (a figure that repeats) is left out (``answer_in_prompt``), as the FutureX
check forbids an answer in the prompt. Level-4 rows of other origins keep the documented fallback
(``level4_sigma_relative`` x |value|, ``sigma_source: relative``), flagged per row.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import pyarrow.parquet as pq

from almanac.core.ids import content_id
from almanac.core.layout import series_paths as sp
from almanac.core.step import Drop

ORIGIN: Final = "series"
SPLITS_DIR: Final = sp.series_splits_dir()
SIGMA_SOURCES: Final = {
    "recent_values": "series_recent_values",
    "fallback_relative": "series_fallback_relative",
}
Row = Mapping[str, Any]


def read_numeric_questions(root: Path = Path(".")) -> list[dict[str, Any]]:
    """Every released numeric series question (all splits: the step rejects the non-test ones)."""
    folder = root / SPLITS_DIR
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*/*.parquet")):
        table = pq.ParquetFile(path).read()
        rows += [row for row in table.to_pylist() if row["kind"] == "numeric"]
    return rows


def background(row: Row) -> str:
    figures = "; ".join(
        f"{item['period_start'].isoformat()}: {item['value']:g}" for item in row["prompt_values"]
    )
    return (
        f"{row['title']} ({row['unit']}, frequency {row['frequency']}). Figures published by "
        f"{row['forecast_date'].isoformat()}, by the period they describe: {figures}"
    )


def from_series(row: Row) -> dict[str, Any] | Drop:
    if row.get("split") != "test":
        return Drop("in_training_split", f"released in the series {row.get('split')} split")
    text = background(row)
    if re.search(rf"(?<![\d.]){re.escape(str(row['answer']))}(?![\d])", f"{row['question']} {text}"):
        return Drop("answer_in_prompt", f"the answer {row['answer']} is one of the figures shown")
    return {
        "event_id": content_id("futurex-event", ORIGIN, str(row["question_id"])),
        "origin": ORIGIN,
        "source_id": row["question_id"],
        "question": row["question"],
        "background": text,
        "answers": [str(row["answer"])],
        "answer_type": "numeric",
        "answer_class": "number",
        "value": float(row["resolution_value"]),
        "unit": row["unit"],
        "information_cutoff": row["forecast_date"],
        "resolution_date": row["resolution_date"],
        "news_source": row["series_id"],  # the "site" of FutureX's one-event-per-template cap
        "source_day": row["forecast_date"],
        "resolution_source": f"{row['series_id']} (data/series/observations.parquet)",
    }


def series_sigmas(rows: Sequence[Row]) -> dict[str, tuple[float, str]]:
    """Series question id -> (sigma, sigma_source as a FutureX row says it)."""
    return {
        str(row["question_id"]): (float(row["sigma"]), SIGMA_SOURCES[str(row["sigma_source"])])
        for row in rows
        if row.get("sigma") is not None
    }
