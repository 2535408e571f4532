"""DVC stage ``futuresim_repair``: FutureSim's resolution-date repair loop over the released splits."""

from __future__ import annotations

import time
from typing import Any

from almanac.core.layout import (
    foresight_splits_dir,
    futuresim_repair_dir,
    futuresim_repair_rejects,
    metrics_path,
)
from almanac.core.params import parse_section
from almanac.core.stage import parse_stage_args
from almanac.foresight.split import SplitConfig
from almanac.futuresim.filter_io import index_retriever, write_outputs
from almanac.futuresim.questions import read_released_splits, split_starts
from almanac.futuresim.repair import STAGE, RepairConfig, repair_dates
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config


def run() -> int:
    started = time.perf_counter()
    _, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(RepairConfig, params.get("futuresim") or {}, "repair")
    starts = split_starts(parse_section(SplitConfig, params.get("foresight") or {}, "split"))
    llm = parse_llm_config(params)
    rows = read_released_splits(foresight_splits_dir())
    evidence: list[dict[str, Any]] = []
    with LLMCache(llm.cache_path) as cache:
        kept, ledger = repair_dates(rows, starts, index_retriever(params), config, llm, cache, evidence)
    write_outputs(
        kept,
        evidence,
        ledger,
        started,
        futuresim_repair_dir(),
        futuresim_repair_rejects(),
        metrics_path(STAGE),
    )
    return 0
