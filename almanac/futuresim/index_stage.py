"""DVC stage ``futuresim_index``: one BM25 index over the chunks of every month (scores comparable across
months, so a search spanning months ranks them together)."""

from __future__ import annotations

import time
from pathlib import Path

import pyarrow as pa

from almanac.core.io import read_parquet
from almanac.core.layout import futuresim_chunks, futuresim_index_dir
from almanac.core.params import months_in_scope, parse_section
from almanac.core.rejects import StageLedger
from almanac.core.stage import StageError, end_stage, parse_stage_args
from almanac.futuresim.corpus import CorpusConfig
from almanac.futuresim.dense import embedder_from_params, write_dense
from almanac.futuresim.index import BACKEND, IndexManifest, build_index
from almanac.futuresim.schema import CHUNK_SCHEMA
from almanac.futuresim.tokens import TOKENIZER

STAGE = "futuresim_index"


def run() -> int:
    started = time.perf_counter()
    _args, params = parse_stage_args(__doc__ or STAGE, per_month=False)
    months = months_in_scope(params)
    config = parse_section(CorpusConfig, params.get("futuresim") or {}, "corpus")
    missing = [str(futuresim_chunks(month)) for month in months if not futuresim_chunks(month).is_file()]
    if missing:
        raise StageError(f"no chunks {missing}: run `dvc repro futuresim_corpus` first")
    chunks = pa.concat_tables(
        [CHUNK_SCHEMA.empty_table()]
        + [read_parquet(futuresim_chunks(month), CHUNK_SCHEMA) for month in months]
    )
    embedder = embedder_from_params(params)
    model = embedder.model if embedder else ""
    manifest = IndexManifest(BACKEND, TOKENIZER, config.chunk_tokens, chunks.num_rows, tuple(months), model)
    ledger = StageLedger(STAGE)  # the embedder's accounting (requests, tokens, cost; cache hits this run)

    def dense(ordered: pa.Table, folder: Path) -> None:
        assert embedder is not None
        write_dense(ordered, folder, embedder, ledger)

    build_index(chunks, futuresim_index_dir(), manifest, dense if embedder else None)
    what = f"{BACKEND} + dense vectors of {model}" if embedder else f"{BACKEND} only (no embedder role)"
    produced = f"{chunks.num_rows} chunks of {len(months)} months indexed: {what}"
    end_stage(STAGE, produced, started, ledger.timings, ledger.run_counts)
    return 0
