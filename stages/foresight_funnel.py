"""DVC stage ``foresight_funnel``: Table-1 style funnel and Table-4 style answer types -> reports/."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from almanac.core.io import write_json, write_text
from almanac.core.layout import METRICS, foresight_splits_dir
from almanac.core.params import months_in_scope
from almanac.core.stage import parse_stage_args
from almanac.foresight.funnel import (
    OPENFORESIGHT_FUNNEL,
    answer_type_rows,
    funnel_markdown,
    funnel_metrics,
    funnel_rows,
    split_rows,
)

MARKDOWN_OUT = Path("reports/foresight_funnel.md")
JSON_OUT = Path("reports/foresight_funnel.json")


def main() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or "foresight_funnel", per_month=False)
    months = months_in_scope(params)
    split_files = sorted(foresight_splits_dir().rglob("*.parquet"))
    funnel = funnel_rows(METRICS, months, OPENFORESIGHT_FUNNEL)
    answer_types = answer_type_rows(split_files)
    splits = split_rows(split_files)
    write_text(funnel_markdown(funnel, answer_types, splits), MARKDOWN_OUT)
    metrics = funnel_metrics(funnel, answer_types, splits)
    metrics["seconds"] = round(time.perf_counter() - started, 3)
    write_json(metrics, JSON_OUT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
