"""DVC stage ``futuresim_answerability``: FutureSim's two-sided answerability filter (the question set)."""

from __future__ import annotations

import time
from typing import Any

from almanac.core.layout import (
    futuresim_answerability_rejects,
    futuresim_questions_dir,
    futuresim_repair_dir,
    metrics_path,
)
from almanac.core.params import parse_section
from almanac.core.stage import parse_stage_args
from almanac.futuresim.answerability import STAGE, AnswerabilityConfig, filter_answerable
from almanac.futuresim.filter_io import index_retriever, write_outputs
from almanac.futuresim.questions import read_evidence, read_set
from almanac.llm.cache import LLMCache
from almanac.llm.config import parse_llm_config


def run() -> int:
    started = time.perf_counter()
    _, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_section(AnswerabilityConfig, params.get("futuresim") or {}, "answerability")
    llm = parse_llm_config(params)
    rows = read_set(futuresim_repair_dir())
    # The repair loop's searches stay in the released set's evidence, beside this stage's own.
    evidence: list[dict[str, Any]] = read_evidence(futuresim_repair_dir())
    with LLMCache(llm.cache_path) as cache:
        kept, ledger = filter_answerable(rows, index_retriever(params), config, llm, cache, evidence)
    write_outputs(
        kept,
        evidence,
        ledger,
        started,
        futuresim_questions_dir(),
        futuresim_answerability_rejects(),
        metrics_path(STAGE),
    )
    return 0
