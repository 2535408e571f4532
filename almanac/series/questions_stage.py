"""DVC stage ``series_questions``: observations -> question splits by resolution month, each question with
its news context (top-k FutureSim chunks available by its forecast date), data/series/splits/.

``data/series/splits/<split>/<resolution month>.parquet`` is swapped whole. The news context needs the
FutureSim index (``data/futuresim/index``); without it the stage stops (:class:`StageError`) before
writing, so the previous splits stay.
"""

from __future__ import annotations

import time

from almanac.core.io import atomic_dir, read_parquet, write_parquet
from almanac.core.layout import futuresim_index_dir, metrics_path
from almanac.core.layout import series_paths as sp
from almanac.core.stage import StageError, finish_stage, parse_stage_args
from almanac.futuresim.dense import embedder_from_params
from almanac.futuresim.index import MANIFEST
from almanac.futuresim.retrieval import index_search
from almanac.series.config import parse_series
from almanac.series.context import add_context, context_counts, retrieval_k
from almanac.series.release import STAGE, build_release
from almanac.series.schema import OBSERVATION_SCHEMA


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    config = parse_series(params)
    search = None
    if config.context.enabled:
        index_root = futuresim_index_dir()
        if not (index_root / MANIFEST).is_file():
            raise StageError(f"no index in {index_root}: run `dvc repro futuresim_index` first")
        embedder = embedder_from_params(params)
        search = index_search(index_root, embedder.embed_query if embedder else None)
    rows = read_parquet(sp.series_observations(), OBSERVATION_SCHEMA).to_pylist()
    tables, ledger = build_release(rows, config.split, config.questions)
    tables = add_context(tables, config.context, retrieval_k(params), search)
    ledger.extra.update(context_counts(tables))
    # The folder is swapped whole: a month no longer built leaves no stale file behind.
    with atomic_dir(sp.series_splits_dir()) as staging:
        for (split, month), table in tables.items():
            write_parquet(table, staging / split / f"{month}.parquet")
    finish_stage(ledger, started, sp.series_question_rejects(), metrics_path(STAGE))
    return 0
